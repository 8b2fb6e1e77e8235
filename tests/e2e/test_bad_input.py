"""The bad-input corpus: every malformed project in tests/corpus/bad_input/ ends with exit 2 and one line.

Each case folder holds `files/` (laid over the valid project in `_base/`), optionally `delete.txt`
(base files to remove) and `args.txt` (the command line, one word a line; default
`verify --config skill-be.yaml`), and `expected.txt`: the exact line expected on stderr. The real
command line runs in a copy of the project, which must be left exactly as it was.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "bad_input"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and not p.name.startswith("_"))


def build(case: Path, into: Path) -> list[str]:
    """Lay the case over the base project in `into`; return the command line's arguments."""
    shutil.copytree(CORPUS / "_base", into)
    if (case / "files").is_dir():
        shutil.copytree(case / "files", into, dirs_exist_ok=True)
    if (case / "delete.txt").is_file():
        for rel in (case / "delete.txt").read_text(encoding="utf-8").split():
            (into / rel).unlink()
    args_file = case / "args.txt"
    return (
        args_file.read_text(encoding="utf-8").split("\n")[:-1]
        if args_file.is_file()
        else [
            "verify",
            "--config",
            "skill-be.yaml",
        ]
    )


def snapshot(root: Path) -> dict[str, tuple[bytes, int] | None]:
    out: dict[str, tuple[bytes, int] | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), root) + "/"] = None
        for f in filenames:
            p = Path(dirpath, f)
            out[p.relative_to(root).as_posix()] = (p.read_bytes(), p.stat().st_mtime_ns)
    return out


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILL_BE")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "skill_be", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=60,
    )


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 45
    for name in CASES:
        assert (CORPUS / name / "expected.txt").is_file(), name


@pytest.mark.parametrize("name", CASES)
def test_bad_input(name: str, tmp_path: Path) -> None:
    case = CORPUS / name
    project = tmp_path / "project"
    args = build(case, project)
    before = snapshot(project)
    done = run_cli(args, project)
    expected = (case / "expected.txt").read_text(encoding="utf-8").rstrip("\n")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.split("\n")
    assert lines[-1] == "" and len(lines) == 2, f"stderr must be one line, got: {done.stderr!r}"
    assert lines[0] == expected
    assert snapshot(project) == before


# Errors about a whole file or about the command line, which have no line to point at.
NO_PLACE = {
    "config-is-folder",  # conf.d is a folder
    "config-missing",  # nope.yaml does not exist
    "result-file-is-folder",
    "yaml-empty-file",
    "yaml-only-comments",
    "run-named-skill-without-eval-file",  # a skill named on the command line
    "run-named-skill-without-skill-md",
    "layout-test-file-for-no-scenario",  # about a test file's name, not its contents
    "layout-test-file-for-scenario-without-output",
}


@pytest.mark.parametrize("name", CASES)
def test_every_error_in_a_file_names_its_line(name: str) -> None:
    """`file:line:column: ...` (`file:line: ...` for bytes that are not UTF-8): the place is part of the
    one format of every error about the inside of a config, eval, result or SKILL.md file."""
    line = (CORPUS / name / "expected.txt").read_text(encoding="utf-8").rstrip("\n")
    placed = re.match(r"^[^\s:]+:\d+(:\d+)?: ", line) is not None
    assert placed != (name in NO_PLACE), line
