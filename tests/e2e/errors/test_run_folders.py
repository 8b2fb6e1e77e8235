"""A folder the run cannot write (issue 20): one line naming it and the fix, exit 2, no model call,
nothing of the committed result file lost."""

from __future__ import annotations

import os
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
        pytest.skip("/sys takes new folders here")
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


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permissions")
def test_a_read_only_results_folder(tmp_path: Path) -> None:  # pragma: no cover - CI runs as root
    root = project(tmp_path, model=COUNTING)
    (root / ".skill-be" / "results").mkdir(parents=True)
    (root / ".skill-be" / "results").chmod(0o500)
    line = one_line_exit_2(run(root, "run"))
    assert "cannot be written (permission denied)" in line
