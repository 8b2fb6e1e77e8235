"""SIGINT and SIGTERM: calls in flight are killed, nothing survives, finished skills stay written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.e2e.run.helpers import project
from tests.e2e.run.test_run_faults import alive

SLOW_MODEL = f"""
import os, subprocess, sys, time
p = sys.stdin.read()
if "Slow task" in p:
    child = subprocess.Popen([{sys.executable!r}, "-c", "import time; time.sleep(600)"])
    open("pids.log", "a").write(f"{{os.getpid()}}\\n{{child.pid}}\\n")
    time.sleep(600)
print("allocate")
"""


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_kills_calls_in_flight_and_keeps_finished_skills(tmp_path: Path, signum: int, code: int) -> None:
    root = project(
        tmp_path,
        model=SLOW_MODEL,
        skills={
            "alpha": [{"id": "fast", "prompt": "Fast task.", "criteria": ["Uses allocate"]}],
            "beta": [{"id": "slow", "prompt": "Slow task.", "criteria": ["Uses allocate"]}],
        },
        config={"concurrency": 8},
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "skill_be", "run"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    deadline = time.monotonic() + 60
    result_file = root / "skill-be.result.json"
    pids_log = root / "pids.log"
    while time.monotonic() < deadline:
        if result_file.exists() and pids_log.exists() and len(pids_log.read_text().split()) >= 8:
            break
        time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail("the run did not reach the slow skill")
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert "stopped the model calls in flight" in err
    pids = [int(p) for p in pids_log.read_text().split()]
    time.sleep(0.2)
    assert [p for p in pids if alive(p)] == []
    entries = json.loads(result_file.read_text())["skills"]
    assert list(entries) == ["alpha"]
    runs = list((root / ".skill-be" / "results").iterdir())
    summary = json.loads((runs[0] / "summary.json").read_text())
    assert list(summary["skills"]) == ["alpha"]
    assert "## Release Gate" in out


def test_a_run_stopped_before_its_first_output_leaves_no_empty_run_folder(tmp_path: Path) -> None:
    root = project(
        tmp_path, model=SLOW_MODEL, skills={"beta": [{"id": "slow", "prompt": "Slow task.", "criteria": ["x"]}]}
    )
    proc = subprocess.Popen([sys.executable, "-m", "skill_be", "run"], cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_COLOR": "1"})  # fmt: skip
    pids_log, results = root / "pids.log", root / ".skill-be" / "results"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (pids_log.exists() and results.exists() and any(results.iterdir())):
        time.sleep(0.05)
    assert [p.name for p in results.iterdir()], "the run folder was made once the calls started"  # the control
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert list(results.iterdir()) == [], "nothing was written, so no run folder stays"
