"""`skill-be run` with code tests, as a user runs it: the signup example's demo in Docker and in a
plain process, broken answers, a test file that cannot load, a missing image, and SIGINT while
the tests run. No Docker container or volume of skill-be may be left afterwards."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import docker
import pytest
from tests.support import cli

from skill_be.codetests.sandbox.process import NOTE as USER_NOTE
from skill_be.codetests.sandbox.process import NOTE_ROOT

ROOT = Path(__file__).resolve().parents[2]
# The process runner's note: what it does and does not protect, as root or as a user.
NOTE = NOTE_ROOT if os.geteuid() == 0 else USER_NOTE
TESTS = [
    "answers 201 with the new user when the input is valid",
    "answers 409 and saves nobody when the email is taken",
    "answers 422 and saves nobody when the password is too short",
]


def skill_be(cwd: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    cache = os.environ.get("SKILL_BE_CACHE", str(Path.home() / ".cache" / "skill-be"))
    env = {"NO_COLOR": "1", "SKILL_BE_CACHE": cache}
    return cli.skill_be(cwd, *args, drop=("SKILL_BE_",), env=env, timeout=timeout)


def leftovers() -> list[str]:
    client = docker.from_env()
    try:
        found = [c.name for c in client.containers.list(all=True, filters={"label": "skill-be.run"})]
        found += [v.name for v in client.volumes.list(filters={"label": "skill-be.run"})]
        return found
    finally:
        client.close()


def signup(tmp_path: Path, extra: str = "") -> Path:
    root = tmp_path / "signup"
    shutil.copytree(ROOT / "examples" / "signup", root, ignore=shutil.ignore_patterns(".skill-be"))
    if extra:
        config = root / "skill-be.demo.yaml"
        config.write_text(config.read_text() + extra, encoding="utf-8")
    return root


def outputs(root: Path) -> dict[str, dict[str, object]]:
    runs = sorted((root / ".skill-be" / "demo-results").iterdir())
    folder = runs[-1] / "signup" / "new-signup" / "demo-model"
    return {p.name.removesuffix(".tests.json"): json.loads(p.read_text()) for p in folder.glob("*.tests.json")}


@pytest.mark.parametrize("sandbox", ["auto", "process", "bwrap"])
def test_the_signup_demo_runs_its_code_tests(tmp_path: Path, sandbox: str) -> None:
    root = signup(tmp_path, f"\ncodeTests:\n  sandbox: {sandbox}\n")
    done = skill_be(root, "run", "--config", "skill-be.demo.yaml")
    assert done.returncode == 0, done.stderr
    for name in TESTS:
        assert f"| [test] {name} | 0% | 100% | +100pp |" in done.stdout
    assert (NOTE in done.stderr.splitlines()) == (sandbox == "process")
    ran = "docker" if sandbox == "auto" else sandbox  # auto: the engine answers here
    assert f"code tests: the model's code runs in the {ran} sandbox" in done.stderr.splitlines()
    tests = outputs(root)
    assert sorted(tests) == ["rep-1-baseline", "rep-1-with-skill", "rep-2-baseline", "rep-2-with-skill"]
    for name, data in tests.items():
        assert data["error"] is None
        assert data["passed"] == (3 if name.endswith("with-skill") else 0)
        assert [t["name"] for t in data["tests"]] == TESTS  # type: ignore[union-attr]
    assert tests["rep-1-baseline"]["tests"][0]["message"] == "Expected values to be strictly equal:\n\n200 !== 201\n"  # type: ignore[index]
    assert list((root / ".skill-be" / "deps").iterdir()) == []
    assert leftovers() == []


BROKEN_MODEL = """
import sys
p = sys.stdin.read()
if "--- CONVENTIONS ---" in p:
    print("```ts\\nexport const result = () => async () => { for (;;) {} };\\n```")
else:
    print("I would rather not write code.")
"""


def test_broken_answers_fail_their_tests_with_the_reason(tmp_path: Path) -> None:
    root = signup(tmp_path, "\ncodeTests:\n  testTimeoutSeconds: 2\n")
    (root / "demo" / "model.py").write_text(BROKEN_MODEL, encoding="utf-8")
    done = skill_be(root, "run", "--config", "skill-be.demo.yaml")
    assert done.returncode == 1, done.stderr  # the gate blocks: every test is 0% with the skill
    tests = outputs(root)
    assert {t["message"] for t in tests["rep-1-baseline"]["tests"]} == {  # type: ignore[union-attr]
        "the reply has no code block tagged ts, typescript, js or javascript"
    }
    assert [t["message"] for t in tests["rep-1-with-skill"]["tests"]] == [  # type: ignore[union-attr]
        "timed out after 2 s",
        "not run: an earlier test timed out and the test process was stopped",
        "not run: an earlier test timed out and the test process was stopped",
    ]
    for name in TESTS:
        assert f"| [test] {name} | 0% | 0% | +0pp |" in done.stdout
    assert leftovers() == []


def test_a_test_file_that_throws_stops_the_run_before_any_model_call(tmp_path: Path) -> None:
    root = signup(tmp_path)
    (root / "skill-tests" / "signup" / "new-signup.test.ts").write_text("throw new Error('not ready');\n")
    (root / "demo" / "model.py").write_text("open('called', 'w').write('yes')\nprint('x')\n", encoding="utf-8")
    done = skill_be(root, "run", "--config", "skill-be.demo.yaml")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "skill-tests/signup/new-signup.test.ts: throws when loaded: not ready; a test file must load "
        "without error and register its tests with test(name, fn) from skill-be/testing"
    ]
    assert not (root / "called").exists()
    assert leftovers() == []


def test_a_missing_image_says_how_to_build_it(tmp_path: Path) -> None:
    root = signup(tmp_path, "\ncodeTests:\n  sandbox: docker\n  image: skill-be-sandbox:not-built\n")
    done = skill_be(root, "run", "--config", "skill-be.demo.yaml")
    assert done.returncode == 2
    assert (
        'codeTests.image: the Docker image "skill-be-sandbox:not-built" is not on this Docker engine; build it from '
        "skill-be's source with `docker build --force-rm --target sandbox -t skill-be-sandbox:not-built .`, "
        "set codeTests.image to an image with Node 22 and a POSIX shell, or set codeTests.sandbox: process"
    ) in done.stderr
    assert "Traceback" not in done.stderr


SLOW_TEST = """\
import { test } from 'skill-be/testing';

test('waits', async () => {
  await new Promise((resolve) => setTimeout(resolve, 120_000));
});
"""


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_the_tests_removes_every_container(tmp_path: Path, signum: int, code: int) -> None:
    root = signup(tmp_path, "\ncodeTests:\n  sandbox: docker\n  testTimeoutSeconds: 300\n  answerTimeoutSeconds: 300\n")
    (root / "skill-tests" / "signup" / "new-signup.test.ts").write_text(SLOW_TEST, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILL_BE_")}
    env["SKILL_BE_CACHE"] = os.environ.get("SKILL_BE_CACHE", str(Path.home() / ".cache" / "skill-be"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "skill_be", "run", "--config", "skill-be.demo.yaml"],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not leftovers() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(2)  # the model answers at once; let the answers reach the sandbox
    assert leftovers(), "no sandbox container was started"
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert leftovers() == []
    assert not (root / ".skill-be" / "deps").exists() or list((root / ".skill-be" / "deps").iterdir()) == []
