"""`skill-be check --graders` and `run --validate` as a user runs them: reference answers graded by
a scripted judge (a text rule, or one that is wrong), code tests run on a known-good reference,
the disagreeing lines one each with exit 1, no model under test called, `--dry-run` calling nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.support import cli

ROOT = Path(__file__).resolve().parents[2]

CONFIG = """\
skills: ./skills
evals: ./evals
model: {adapter: command, id: m, run: python3 model.py}
grader: {adapter: command, id: g, run: python3 grader.py}
gradings: 2
reps: 1
checks:
  typecheck: false
"""

MODEL = """import pathlib, sys
sys.stdin.read()
pathlib.Path("model-called").write_text("yes")
print("allocate(10, [1, 1, 1]), then check the sum")
"""

# A judge with a text rule: "Uses allocate" needs `allocate(` in the answer, "Checks the sum" needs
# `sum`. JUDGE=yes makes it a careless judge that says YES to everything.
GRADER = """import os, pathlib, re, sys
prompt = sys.stdin.read()
with pathlib.Path("grader-calls").open("a") as f:
    f.write("x")
answer = prompt.rpartition("<answer>")[2].rpartition("</answer>")[0]
criteria = re.findall(r"^(\\d+)\\. (.+)$", prompt.split("Criteria:")[-1].split("<answer>")[0], re.M)
rules = {"Uses allocate": "allocate(", "Checks the sum": "sum"}
lines = []
for n, c in criteria:
    met = os.environ.get("JUDGE") == "yes" or rules[c] in answer
    lines.append(f"{n}: {'YES' if met else 'NO'}")
print("Read it.\\nVERDICTS:\\n" + "\\n".join(lines))
"""

GOOD = "const parts = allocate(10, [1, 1, 1]); // then check the sum is 10"
BAD = "const parts = [3, 3, 4];"


def project(tmp_path: Path, references: list[dict[str, object]]) -> Path:
    root = tmp_path / "p"
    (root / "skills" / "money").mkdir(parents=True)
    (root / "skills" / "money" / "SKILL.md").write_text("---\nname: money\ndescription: Money.\n---\n# money\n")
    (root / "evals").mkdir()
    scenario = {
        "id": "split",
        "prompt": "Split 10 in three.",
        "criteria": ["Uses allocate", "Checks the sum"],
        "assertions": [{"type": "contains", "value": "allocate"}],
        "references": references,
    }
    (root / "evals" / "money.json").write_text(json.dumps({"scenarios": [scenario]}, indent=2))
    (root / "skill-be.yaml").write_text(CONFIG)
    (root / "model.py").write_text(MODEL)
    (root / "grader.py").write_text(GRADER)
    return root


def right() -> list[dict[str, object]]:
    return [
        {"answer": GOOD, "expect": {"Uses allocate": "YES", "2": "YES", "3": "YES"}},
        {"answer": BAD, "expect": {"Uses allocate": "NO", "Checks the sum": "NO"}},
    ]


def check(root: Path, *args: str, judge: str = "") -> subprocess.CompletedProcess[str]:
    return cli.skill_be(root, "check", "--graders", *args, drop=("SKILL_BE_", "CI"), env={"JUDGE": judge})


def test_correct_references_pass_and_no_model_under_test_is_called(tmp_path: Path) -> None:
    root = project(tmp_path, right())
    done = check(root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "Result: pass (2 reference answer(s), every line as expected)"
    assert not (root / "model-called").exists()
    assert (root / "grader-calls").read_text() == "x" * 4  # 2 references x 2 gradings


def test_a_wrong_judge_is_named_by_scenario_line_and_reference_with_its_replies_kept(tmp_path: Path) -> None:
    root = project(tmp_path, right())
    done = check(root, judge="yes")  # a careless judge: YES to the bad answer too
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "Result: blocked by 2 line(s) that disagree with their reference answers (2 checked)"
    wrong = [line for line in lines if "reference 2" in line]
    assert len(wrong) == 2
    assert wrong[0].startswith("evals/money.json:")
    assert (
        'scenarios[0].references[1]: scenario "split", reference 2, criterion "Uses allocate": expected NO, '
        in (wrong[0])
    )
    assert "the judge gave YES (gradings YES, YES); replies in .skill-be/results/graders/" in wrong[0]
    kept = next((root / ".skill-be" / "results" / "graders").glob("*/money/split/reference"))
    assert sorted(p.name for p in kept.iterdir()) == [
        "rep-2-reference.grading-1.md",
        "rep-2-reference.grading-2.md",
        "rep-2-reference.md",
    ]
    assert "VERDICTS:" in (kept / "rep-2-reference.grading-1.md").read_text()
    assert not (root / "model-called").exists()


def test_a_wrong_expectation_is_one_line_each_and_a_bad_key_is_exit_2(tmp_path: Path) -> None:
    refs = right()
    refs[0]["expect"] = {"Checks the sum": "NO", '[assert] contains "allocate"': "NO"}
    done = check(project(tmp_path / "a", refs))
    assert done.returncode == 1
    said = [line for line in done.stdout.splitlines() if "reference 1" in line]
    assert [s.split(": scenario ")[1] for s in said] == [
        '"split", reference 1, criterion "Checks the sum": expected NO, the judge gave YES (gradings YES, YES); '
        + said[0].split("(gradings YES, YES); ")[1],
        '"split", reference 1, assertion "[assert] contains "allocate"": expected NO, got YES',
    ]
    refs[0]["expect"] = {"Uses sum()": "YES"}
    bad = check(project(tmp_path / "b", refs))
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("evals/money.json:") and '"Uses sum()" names no line of the scenario' in bad.stderr


def test_dry_run_prices_it_and_calls_nothing(tmp_path: Path) -> None:
    root = project(tmp_path, right())
    done = check(root, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith(
        "  2 reference answer(s), graded 2 time(s) each by g: 4 grader calls; about "
    )
    assert not (root / "grader-calls").exists() and not (root / "model-called").exists()


def test_run_validate_stops_before_the_benchmark(tmp_path: Path) -> None:
    root = project(tmp_path, right())
    env = {"JUDGE": "yes"}
    done = cli.skill_be(root, "run", "--validate", drop=("SKILL_BE_", "CI"), env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Stopped before the benchmark: a line disagrees with a reference answer (run --validate)" in done.stdout
    assert not (root / "model-called").exists()
    # the control: with a judge that agrees, the run goes on and calls the model
    ok = cli.skill_be(root, "run", "--validate", drop=("SKILL_BE_", "CI"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert (root / "model-called").exists()


GOOD_CODE = """```python
from tally import Ledger


def result(ledger: Ledger, payer: str, payee: str, cents: int) -> int:
    ledger.transfer(payer, payee, cents)
    return ledger.balance(payer)


reason = "transfer moves the money or none of it."
```"""


def test_a_code_test_failing_on_the_known_good_reference_is_a_broken_test(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    shutil.copytree(ROOT / "examples" / "py-ledger", root, ignore=shutil.ignore_patterns(".skill-be", "build"))
    config = root / "skill-be.demo.yaml"
    config.write_text(config.read_text() + "\ncodeTests:\n  sandbox: process\n")
    evals = root / "evals" / "ledger.json"
    doc = json.loads(evals.read_text())
    doc["scenarios"][0]["references"] = [
        {"answer": GOOD_CODE, "expect": {"[test] test_moves_the_money_and_returns_the_payers_balance": "YES"}}
    ]
    evals.write_text(json.dumps(doc, indent=2))
    args = ("check", "--graders", "--config", "skill-be.demo.yaml")
    ok = cli.skill_be(root, *args, drop=("SKILL_BE_", "CI"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    tests = next(root.glob("skill-tests/**/test_pay.py"))
    tests.write_text(tests.read_text().replace("== 700", "== 701"))  # the test is now wrong
    broken = cli.skill_be(root, *args, drop=("SKILL_BE_", "CI"))
    assert broken.returncode == 1, broken.stdout + broken.stderr
    line = broken.stdout.splitlines()[0]
    assert line.startswith("evals/ledger.json:") and 'scenario "pay", reference 1: code test ' in line
    assert '"test_moves_the_money_and_returns_the_payers_balance" fails on a reference that must pass it' in line
    assert "a broken test?" in line
