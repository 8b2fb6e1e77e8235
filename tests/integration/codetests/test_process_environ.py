"""As root, the process runner's answers cannot read skill-be's environment, nor its parent's, through
/proc/<pid>/environ: they run under a uid of their own. /proc shows the environment a process started
with, so skill-be runs here as a child process that gets the canary at its start, under a shell that
has it too; the control runs the answers as skill-be's own user, and the same read gets the canary."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

from tests.integration.codetests.conftest import PROBE_TEST, CodeProject

REPO = Path(__file__).resolve().parents[3]

# The answer walks up from its own process: the runner, skill-be, skill-be's parent (the shell).
# A process it cannot read is skipped, so the walk goes on past it.
READ_ENVIRON = """import { readFileSync } from 'node:fs';
export const result = () => {
  const seen = [];
  let pid = process.pid;
  for (let i = 0; i < 4 && pid > 1; i++) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').includes('CANARY_%s')) seen.push(i);
    } catch {}
    pid = Number(readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ')[1]);
  }
  return seen.length ? 'LEAK at ' + seen.join(',') : 'contained';
};"""

DRIVER = """
import json, sys
from pathlib import Path
from tests.integration.codetests.conftest import Driver, ts
drive = Driver()
session = drive.open(Path(sys.argv[1]), weaken=frozenset(sys.argv[3:]))
try:
    run = drive(session.run("probe", "probe", ts(Path(sys.argv[2]).read_text())))
    print(json.dumps(run.to_json()))
finally:
    drive(session.close())
    drive.close()
"""


def run_as_skill_be(tmp_path: Path, *weaken: str) -> dict[str, object]:
    tag = secrets.token_hex(8)
    project = CodeProject(tmp_path / "proj")
    project.scenarios({"probe": PROBE_TEST})
    config = project.save_config({"sandbox": "process", "testTimeoutSeconds": 5}, 1)
    answer = tmp_path / "answer.ts"
    answer.write_text(READ_ENVIRON % tag, encoding="utf-8")
    env = {**os.environ, f"CANARY_{tag}": "secret", "PYTHONPATH": str(REPO)}
    # `; exit` keeps the shell alive as skill-be's parent instead of exec-ing Python in its place.
    argv = ["sh", "-c", '"$0" -c "$1" "$2" "$3" "$4" "$5"; exit $?', sys.executable, DRIVER, str(config), str(answer)]
    done = subprocess.run([*argv, *weaken], env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_as_root_an_answer_reads_neither_skill_be_s_environment_nor_its_parent_s(tmp_path: Path) -> None:
    assert os.geteuid() == 0, "this test needs root, as in the skill-be container image"
    run = run_as_skill_be(tmp_path)
    assert run["tests"] == [
        {"name": "probe", "passed": True, "message": None, "seconds": run["tests"][0]["seconds"]},  # type: ignore[index]
        {"name": "after", "passed": True, "message": None, "seconds": run["tests"][1]["seconds"]},  # type: ignore[index]
    ]


def test_control_as_skill_be_s_own_user_the_same_answer_reads_both(tmp_path: Path) -> None:
    run = run_as_skill_be(tmp_path, "uid")
    probe = run["tests"][0]  # type: ignore[index]
    assert probe["passed"] is False
    # 0 is the answer's own process, 1 the runner (its environment cut), 2 skill-be, 3 the shell.
    assert "LEAK at 2,3" in probe["message"]
