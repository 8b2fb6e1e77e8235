"""`skill-be run` with Python code tests, as a user runs it: the py-ledger example's demo in the process
sandbox and in Docker, its pip list installed once and reused with --keep-deps, the JUnit file and
the HTML page with pytest's messages, `verify`, and the config errors that stop a run before any
model call (a bad pip list, a test file that does not collect)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.support import cli

from skill_be.codetests.sandbox.image import DEFAULT_IMAGE

ROOT = Path(__file__).resolve().parents[2]
IMAGE = os.environ.get("SKILL_BE_TEST_SANDBOX_IMAGE", DEFAULT_IMAGE)
TESTS = [
    "test_moves_the_money_and_returns_the_payers_balance",
    "test_refuses_to_overdraw",
    "test_moves_nothing_when_it_refuses",
    "test_refuses_an_amount_that_is_not_positive[0]",
    "test_refuses_an_amount_that_is_not_positive[-250]",
]


def skill_be(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli.skill_be(cwd, *args, drop=("SKILL_BE_", "CI"), env={"NO_COLOR": "1"}, timeout=600)


def ledger(tmp_path: Path, extra: str = "") -> Path:
    root = tmp_path / "ledger"
    shutil.copytree(ROOT / "examples" / "py-ledger", root, ignore=shutil.ignore_patterns(".skill-be", "build"))
    if extra:
        config = root / "skill-be.demo.yaml"
        config.write_text(config.read_text() + extra, encoding="utf-8")
    return root


def outputs(root: Path) -> dict[str, dict[str, object]]:
    runs = sorted((root / ".skill-be" / "demo-results").iterdir())
    folder = runs[-1] / "ledger" / "pay" / "demo-model"
    return {p.name.removesuffix(".tests.json"): json.loads(p.read_text()) for p in folder.glob("*.tests.json")}


@pytest.mark.parametrize("sandbox", ["process", "docker"])
def test_the_ledger_demo_runs_its_python_tests(tmp_path: Path, sandbox: str) -> None:
    root = ledger(tmp_path, f"\ncodeTests:\n  sandbox: {sandbox}\n  image: {IMAGE}\n")
    done = skill_be(root, "run", "--config", "skill-be.demo.yaml", "--junit", "junit.xml", "--html")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"code tests: the model's code runs in the {sandbox} sandbox" in done.stderr.splitlines()
    assert "installed the test packages of test-packages.json in .skill-be/deps/" in done.stderr
    wins = {TESTS[1]: "0%", TESTS[2]: "0%", TESTS[3]: "0%", TESTS[4]: "0%"}
    for name in TESTS:
        line = f"| [test] {name.replace('_', chr(92) + '_').replace('[', chr(92) + '[').replace(']', chr(92) + ']')} |"
        assert any(row.startswith(line) for row in done.stdout.splitlines()), (name, done.stdout)
        if name in wins:
            assert any(row.startswith(line) and "| 0% | 100% | +100pp |" in row for row in done.stdout.splitlines())
    tests = outputs(root)
    assert tests["rep-1-with-skill"]["passed"] == 5 and tests["rep-1-baseline"]["passed"] == 1
    baseline = {t["name"]: t["message"] for t in tests["rep-1-baseline"]["tests"]}  # type: ignore[union-attr]
    assert baseline[TESTS[1]] == "Failed: DID NOT RAISE <class 'tally.InsufficientFunds'>"
    junit = (root / "junit.xml").read_text()
    assert "[test] test_refuses_to_overdraw" in junit
    html = next((root / ".skill-be" / "demo-results").glob("*/results.html")).read_text()
    assert "DID NOT RAISE" in html
    assert list((root / ".skill-be" / "deps").iterdir()) == []
    assert skill_be(root, "verify", "--config", "skill-be.demo.yaml").returncode == 0


def test_the_pip_list_installs_once_and_is_reused_with_keep_deps(tmp_path: Path) -> None:
    root = ledger(tmp_path, "\ncodeTests:\n  sandbox: process\n")
    first = skill_be(root, "run", "--config", "skill-be.demo.yaml", "--keep-deps")
    assert first.returncode == 0, first.stderr
    assert "installed the test packages of test-packages.json in .skill-be/deps/" in first.stderr
    second = skill_be(root, "run", "--config", "skill-be.demo.yaml", "--keep-deps")
    assert second.returncode == 0, second.stderr
    assert "reused the test packages of test-packages.json in .skill-be/deps/" in second.stderr
    assert "installed the test packages" not in second.stderr
    (folder,) = (root / ".skill-be" / "deps").iterdir()
    assert (folder / "site-packages" / "tally" / "__init__.py").is_file()


@pytest.mark.parametrize(
    ("packages", "says"),
    [
        ('{"pip": ["./lib/no-such-library"]}', "pip install of its test packages failed in .skill-be/deps/"),
        ('{"pip": ["--index-url=http://127.0.0.1:9"]}', 'pip[0]: "--index-url=http://127.0.0.1:9" is an option'),
        ('{"cargo": ["serde"]}', 'section "cargo" is not supported'),
        ('{"pip": "tally"}', "pip: must be a list of package specs"),
    ],
    ids=["fails-to-install", "an-option", "another-section", "not-a-list"],
)
def test_a_bad_pip_list_stops_the_run_before_any_model_call(tmp_path: Path, packages: str, says: str) -> None:
    root = ledger(tmp_path, "\ncodeTests:\n  sandbox: process\n")
    (root / "test-packages.json").write_text(packages)
    (root / "demo" / "model.py").write_text("open('called', 'w').write('yes')\nprint('x')\n")
    done = skill_be(root, "run", "--config", "skill-be.demo.yaml")
    assert done.returncode == 2, done.stdout + done.stderr
    assert says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (root / "called").exists()


def test_a_test_file_that_does_not_collect_stops_the_run_before_any_model_call(tmp_path: Path) -> None:
    root = ledger(tmp_path, "\ncodeTests:\n  sandbox: process\n")
    (root / "skill-tests" / "ledger" / "test_pay.py").write_text("raise RuntimeError('not ready')\n")
    (root / "demo" / "model.py").write_text("open('called', 'w').write('yes')\nprint('x')\n")
    done = skill_be(root, "run", "--config", "skill-be.demo.yaml")
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip().splitlines()[-1]  # after the install line of its pip list
    assert line.startswith("skill-tests/ledger/test_pay.py: raises when collected: RuntimeError: not ready"), line
    assert not (root / "called").exists()


# The demo's model, answering the baseline's way in both arms, and as triage's classifier.
PLAIN_MODEL = """
import sys
p = sys.stdin.read()
if "Categories:" in p:
    open("classifier.log", "a").write(p)
    print("CATEGORY: test error\\nREASON: the test asks for an exception")
else:
    print("```python\\ndef result(ledger, payer, payee, cents):\\n    ledger.post(payer, -cents)\\n"
          "    ledger.post(payee, cents)\\n    return ledger.balance(payer)\\n```")
"""


def test_triage_and_regrade_of_a_blocked_python_run(tmp_path: Path) -> None:
    root = ledger(tmp_path, "\ncodeTests:\n  sandbox: process\n")
    (root / "demo" / "model.py").write_text(PLAIN_MODEL)
    assert skill_be(root, "run", "--config", "skill-be.demo.yaml").returncode == 1  # blocked: 0% with the skill
    again = skill_be(root, "regrade", "--config", "skill-be.demo.yaml")
    assert again.returncode == 1, again.stderr
    assert "| [test] test\\_refuses\\_to\\_overdraw | 0% | 0% | +0pp |" in again.stdout
    triage = skill_be(root, "triage", "--config", "skill-be.demo.yaml", "--samples=1")
    assert triage.returncode == 0, triage.stderr
    assert '"[test] test_refuses_to_overdraw": test error — the test asks for an exception' in triage.stdout
    prompt = (root / "classifier.log").read_text()
    assert "def test_refuses_to_overdraw(ledger):" in prompt  # the test file's source
    assert "DID NOT RAISE <class 'tally.InsufficientFunds'>" in prompt  # and pytest's message


def scored(root: Path) -> tuple[object, list[tuple[str, int, int]]]:
    """The newest run's verdict and its lines (line, baseline, with skill), from summary.json."""
    runs = sorted(p for p in (root / ".skill-be" / "demo-results").iterdir() if (p / "summary.json").exists())
    skill = json.loads((runs[-1] / "summary.json").read_text())["skills"]["ledger"]
    lines = [(x["line"], x["baseline"], x["withSkill"]) for sc in skill["scenarios"]
             for m in sc["models"].values() for x in m["lines"]]  # fmt: skip
    return skill["ready"], lines


def test_python_code_tests_through_shards_merge_and_the_cache(tmp_path: Path) -> None:
    root = ledger(tmp_path, "\ncodeTests:\n  sandbox: process\n")
    whole = skill_be(root, "run", "--config", "skill-be.demo.yaml", "--cache")
    assert whole.returncode == 0, whole.stdout + whole.stderr
    expected = scored(root)
    assert expected[0] is True and len(expected[1]) == len(TESTS)
    # The cache answers every call of a second run, and the code tests run again on the same answers.
    again = skill_be(root, "run", "--config", "skill-be.demo.yaml", "--cache")
    assert again.returncode == 0, again.stderr
    assert scored(root) == expected
    newest = sorted(p for p in (root / ".skill-be" / "demo-results").iterdir() if (p / "summary.json").exists())[-1]
    calls = json.loads((newest / "summary.json").read_text())["skills"]["ledger"]["calls"]
    assert calls["made"] == 0 and calls["cached"] > 0, calls
    # Two shards merged score the tests as the unsharded run did.
    dirs = []
    for k in (1, 2):
        shard = skill_be(root, "run", "--config", "skill-be.demo.yaml", "--shard", f"{k}/2")
        assert shard.returncode == 0, shard.stdout + shard.stderr
        dirs.append(sorted((root / ".skill-be" / "demo-results").iterdir())[-1])
    merged = skill_be(root, "merge", "--config", "skill-be.demo.yaml", *map(str, dirs))
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert scored(root) == expected
