"""summary.json and the result file, hand-edited or older: `triage` and `verify` read them through
their models, so wrong types, missing keys and truncated JSON are one line on stderr and exit 2,
never a traceback. An unknown key in a result file that this version (or an earlier one) wrote is a
hand edit and one line too; a file from a newer skill-be or from the Node tool may carry keys this
version does not know. summary.json allows extra keys (each feature adds its own)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.e2e.run.helpers import Result, project, run

SC = [{"id": "split", "critical": True, "prompt": "Split a bill.", "criteria": ["Uses allocate", "Uses format"]}]
SUMMARY_FIX = 'run "skill-be run" again to write a new one, or delete that run folder'
RESULT_FIX = 'restore it from git, or delete it (the next "skill-be run" writes a new one)'
Edit = Callable[[dict[str, Any]], object]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real run (NOT READY: "Uses format" is 0% with the skill), copied for each case."""
    root = project(tmp_path_factory.mktemp("recorded"), skills={"money": SC})
    assert run(root, "run").code == 1
    return root


def copy(recorded: Path, tmp_path: Path) -> Path:
    root = tmp_path / "p"
    shutil.copytree(recorded, root)
    return root


def edit_json(path: Path, change: Edit) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def one_line(r: Result) -> str:
    assert (r.code, r.stdout) == (2, ""), r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    lines = r.stderr.split("\n")
    assert len(lines) == 2 and lines[1] == "", f"stderr must be one line, got: {r.stderr!r}"
    return lines[0]


def summary_of(root: Path) -> Path:
    runs = sorted((root / ".skill-be" / "results").iterdir())
    return runs[-1] / "summary.json"


SUMMARY_CASES: list[tuple[str, Edit, str]] = [
    (
        "wrong type",
        lambda d: d["skills"]["money"].update(ready="no"),
        r"skills\.money\.ready: must be true or false, not a string",
    ),
    (
        "wrong type deep",
        lambda d: d["skills"]["money"]["scenarios"][0]["models"]["m1"]["lines"][1].update(withSkill="0%"),
        r"skills\.money\.scenarios\[0\]\.models\.m1\.lines\[1\]\.withSkill: must be a whole number, not a string",
    ),
    (
        "missing key",
        lambda d: d["skills"]["money"].pop("gate"),
        r'skills\.money: missing required key "gate"',
    ),
    (
        "missing key in a block",
        lambda d: d["skills"]["money"]["gate"]["zero"][0].pop("line"),
        r'skills\.money\.gate\.zero\[0\]: missing required key "line"',
    ),
    ("not an object", lambda d: d["skills"].update(money=[]), r"skills\.money: must be a mapping of keys to values"),
]


@pytest.mark.parametrize(("name", "change", "expected"), SUMMARY_CASES, ids=[c[0] for c in SUMMARY_CASES])
def test_triage_with_a_broken_summary_is_one_line(
    recorded: Path, tmp_path: Path, name: str, change: Edit, expected: str
) -> None:
    root = copy(recorded, tmp_path)
    path = summary_of(root)
    edit_json(path, change)
    line = one_line(run(root, "triage"))
    rel = path.relative_to(root).as_posix()
    assert re.fullmatch(rf"{re.escape(rel)}:\d+:\d+: {expected}.*; {re.escape(SUMMARY_FIX)}", line), line


def test_triage_with_a_truncated_summary_is_one_line(recorded: Path, tmp_path: Path) -> None:
    root = copy(recorded, tmp_path)
    path = summary_of(root)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    line = one_line(run(root, "triage"))
    rel = path.relative_to(root).as_posix()
    assert re.fullmatch(rf"{re.escape(rel)}:\d+:\d+: invalid JSON \(.+\); {re.escape(SUMMARY_FIX)}", line), line


def test_triage_reads_a_summary_with_extra_keys(recorded: Path, tmp_path: Path) -> None:
    """The control: the same run with keys skill-be does not know triages as before."""
    root = copy(recorded, tmp_path)

    def extra(d: dict[str, Any]) -> None:
        d["fromTheFuture"] = {"a": 1}
        d["skills"]["money"]["intervals"] = [1, 2]
        d["skills"]["money"]["gate"]["zero"][0]["why"] = "x"

    edit_json(summary_of(root), extra)
    r = run(root, "triage", "--samples=1")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[0] == "Triage: 1 failure(s)"


RESULT_CASES: list[tuple[str, Edit, str]] = [
    ("wrong type", lambda d: d["skills"]["money"].update(ready=1), r"skills\.money\.ready: must be true or false"),
    ("missing key", lambda d: d["skills"]["money"].pop("date"), r'skills\.money: missing required key "date"'),
    ("null", lambda d: d.update(skillBeVersion=None), r"skillBeVersion: must be a string, not null"),
    (
        "bad score",
        lambda d: d["skills"]["money"]["scores"][0]["baseline"].update(passed=-1),
        r"skills\.money\.scores\[0\]\.baseline\.passed: must be a whole number, 0 or more, not -1",
    ),
    (
        "bad score kind",
        lambda d: d["skills"]["money"]["scores"][0].update(kind="judge"),
        r"skills\.money\.scores\[0\]\.kind: ",
    ),
]


@pytest.mark.parametrize(("name", "change", "expected"), RESULT_CASES, ids=[c[0] for c in RESULT_CASES])
def test_verify_with_a_broken_result_file_is_one_line(
    recorded: Path, tmp_path: Path, name: str, change: Edit, expected: str
) -> None:
    root = copy(recorded, tmp_path)
    edit_json(root / "skill-be.result.json", change)
    line = one_line(run(root, "verify"))
    assert re.fullmatch(rf"skill-be\.result\.json:\d+:\d+: {expected}.*; {re.escape(RESULT_FIX)}", line), line


def test_verify_with_a_truncated_result_file_is_one_line(recorded: Path, tmp_path: Path) -> None:
    root = copy(recorded, tmp_path)
    path = root / "skill-be.result.json"
    path.write_text(path.read_text(encoding="utf-8")[:40], encoding="utf-8")
    line = one_line(run(root, "verify"))
    assert re.fullmatch(rf"skill-be\.result\.json:\d+:\d+: invalid JSON \(.+\); {re.escape(RESULT_FIX)}", line), line


def test_scores_are_recorded_and_extra_keys_and_missing_scores_are_fine(recorded: Path, tmp_path: Path) -> None:
    root = copy(recorded, tmp_path)
    path = root / "skill-be.result.json"
    entry = json.loads(path.read_text(encoding="utf-8"))["skills"]["money"]
    assert entry["scores"] == [
        {"model": "m1", "scenario": "split", "line": "Uses allocate", "kind": "criterion", "critical": True,
         "baseline": {"passed": 0, "total": 2}, "withSkill": {"passed": 2, "total": 2}},
        {"model": "m1", "scenario": "split", "line": "Uses format", "kind": "criterion", "critical": True,
         "baseline": {"passed": 0, "total": 2}, "withSkill": {"passed": 0, "total": 2}},
    ]  # fmt: skip
    before = run(root, "verify")
    assert before.code == 1 and "NOT READY at its last run" in before.stdout  # the verdict, not the scores

    def node_tool_file(d: dict[str, Any]) -> None:
        d["skills"]["money"].pop("scores")
        d["skills"]["money"]["ready"] = True
        d["skills"]["money"]["reasons"] = []
        d["skills"]["money"]["comment"] = "a key skill-be does not know"
        d["generator"] = "@ngwes/skill-be"
        d["skillBeVersion"] = "1.0.0"  # the Node tool's

    edit_json(path, node_tool_file)
    after = run(root, "verify")
    assert after.code == 0, after.stdout + after.stderr
    assert (
        after.stdout.splitlines()[0]
        == "result file skill-be.result.json: 1 skill(s) match their last run, every one READY"
    )


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda d: d["skills"]["money"].update(redy=True),
            r'skills\.money\.redy: unknown key "redy" \(did you mean "ready"\?\)',
        ),
        (lambda d: d.update(skillz={}), r'skillz: unknown key "skillz" \(did you mean "skills"\?\)'),
        (
            lambda d: d["skills"]["money"]["scores"][1]["withSkill"].update(passd=2),
            r'skills\.money\.scores\[1\]\.withSkill\.passd: unknown key "passd" \(did you mean "passed"\?\)',
        ),
    ],
)
def test_verify_refuses_an_unknown_key_in_a_result_file_this_version_wrote(
    recorded: Path, tmp_path: Path, change: Edit, expected: str
) -> None:
    root = copy(recorded, tmp_path)
    path = root / "skill-be.result.json"
    before = path.read_text(encoding="utf-8")
    edit_json(path, change)
    result = run(root, "verify")
    assert result.code == 2
    line = one_line(result)
    assert re.fullmatch(rf"skill-be\.result\.json:\d+:\d+: {expected}; {re.escape(RESULT_FIX)}", line), line
    assert before != path.read_text(encoding="utf-8")  # the user's edit is left as it is


def test_an_unknown_key_is_fine_in_a_result_file_from_a_newer_skill_be(recorded: Path, tmp_path: Path) -> None:
    root = copy(recorded, tmp_path)

    def newer(d: dict[str, Any]) -> None:
        d["skillBeVersion"] = "99.0.0"
        d["skills"]["money"]["confidence"] = {"a": "field a later version adds"}

    edit_json(root / "skill-be.result.json", newer)
    result = run(root, "verify")
    assert result.code == 1, result.stderr  # NOT READY at its last run, read without complaint
    assert "unknown key" not in result.stderr
