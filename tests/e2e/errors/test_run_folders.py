"""A folder the run cannot write (issue 20): one line naming it and the fix, exit 2, no model call,
nothing of the committed result file lost."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.e2e.run.helpers import project, run

COUNTING = "import sys\nsys.stdin.read()\nopen('calls.log', 'a').write('x')\nprint('plain')\n"


def one_line_exit_2(r: object) -> str:
    assert r.code == 2, r.stdout + r.stderr  # type: ignore[attr-defined]
    lines = r.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr  # type: ignore[attr-defined]
    return lines[0]


def test_a_results_path_under_a_file(tmp_path: Path) -> None:
    root = project(tmp_path, model=COUNTING, config={"results": "./taken/results"})
    (root / "taken").write_text("a file where a folder should be")
    line = one_line_exit_2(run(root, "run"))
    assert line == (
        "skill-be.yaml: results: taken/results cannot be a folder: taken is a file; "
        "fix the path or its permissions (results: <folder>)"
    )
    assert not (root / "calls.log").exists()


def test_a_result_file_that_is_a_folder(tmp_path: Path) -> None:
    root = project(tmp_path, model=COUNTING, config={"resultFile": "./out"})
    (root / "out").mkdir()
    assert one_line_exit_2(run(root, "run")) == "out: is a folder, not a result file; give the path of the file"
    assert not (root / "calls.log").exists()


def test_an_unwritable_results_folder(tmp_path: Path) -> None:
    target = Path("/sys/skill-be-results")  # sysfs refuses new files, even to root
    try:
        target.mkdir()
    except OSError:
        pass
    else:  # pragma: no cover - a machine where /sys takes folders
        target.rmdir()
        pytest.fail("/sys takes new folders here: this test needs a folder that refuses them")
    root = project(tmp_path, model=COUNTING, config={"results": str(target)})
    line = one_line_exit_2(run(root, "run"))
    assert line.startswith("skill-be.yaml: results: /sys/skill-be-results cannot be written (")
    assert not (root / "calls.log").exists()


def test_an_unwritable_cache_folder_is_one_warning_and_the_run_goes_on(tmp_path: Path) -> None:
    """The cache only saves calls: it turns off with one warning (tests/e2e/scale/test_cache.py), the run measures."""
    root = project(tmp_path, model=COUNTING)
    (root / ".skill-be").mkdir()
    (root / ".skill-be" / "cache").write_text("not a folder")
    r = run(root, "run", "--cache")
    assert r.code == 1, r.stderr  # the scripted model answers "plain": NOT READY, but measured
    assert sum("the response cache cannot be written" in line for line in r.stderr.splitlines()) == 1


def test_a_read_only_results_folder(tmp_path: Path) -> None:
    """A read-only mount refuses even root (CI runs as root): the folder is bound read-only in a mount
    namespace of the skill-be process alone, so nothing outside the test sees it."""
    root = project(tmp_path, model=COUNTING)
    results = root / ".skill-be" / "results"
    results.mkdir(parents=True)
    script = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"'
    env = {k: v for k, v in os.environ.items() if k != "CI"} | {"NO_COLOR": "1"}
    p = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", str(results),
         sys.executable, "-m", "skill_be", "run"],
        cwd=root, capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert p.returncode == 2, p.stdout + p.stderr
    (line,) = p.stderr.strip().splitlines()
    assert "results" in line and "cannot be written (read-only file system)" in line, line
    assert not (root / "calls.log").exists()
