"""Ctrl-C keeps the answers already paid for (issue 20): a partial summary.json lists them with their
files, the result file records nothing unfinished, and regrade reuses them without a generation."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.e2e.run.helpers import project, run

# The first two calls answer at once, every later one hangs until it is killed.
TWO_THEN_HANG = """
import fcntl, sys, time
p = sys.stdin.read()
with open("calls.log", "a+") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0)
    n = len(f.read().splitlines())
    f.write("call\\n")
if n >= 2:
    time.sleep(600)
print("SKILLED allocate" if "LIBRARY DOCS" in p else "plain")
"""


def test_sigint_writes_a_partial_summary_that_regrade_reuses(tmp_path: Path) -> None:
    root = project(tmp_path, model=TWO_THEN_HANG, config={"concurrency": 1, "reps": 3})
    proc = subprocess.Popen(
        [sys.executable, "-m", "skill_be", "run", "--no-cache"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        answers = list((root / ".skill-be" / "results").glob("*/money/split/m1/rep-*.md"))
        log = root / "calls.log"
        if (
            log.exists()
            and len(log.read_text().split()) >= 3
            and len([a for a in answers if "grading" not in a.name]) >= 2
        ):
            break
        time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail("the run did not answer twice")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "kept the answers of the unfinished skills in" in err and "money (2 answer(s))" in err
    assert not (root / "skill-be.result.json").exists()
    (folder,) = list((root / ".skill-be" / "results").iterdir())
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["interrupted"] is True
    money = summary["skills"]["money"]
    assert money["interrupted"] is True and money["ready"] is False
    outputs = money["scenarios"][0]["models"]["m1"]["outputs"]
    assert len(outputs) == 2 and all(o["file"] for o in outputs)
    # regrade grades what was kept and generates nothing
    before = (root / "calls.log").read_text()
    again = run(root, "regrade", "--run", str(folder))
    assert (root / "calls.log").read_text() == before
    assert again.code in (1, 3), again.stdout + again.stderr
