"""The result file's optional `usage` (issue 19): written, read back, checked like every other key,
and absent in older files and the Node tool's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_be.errors import ConfigError
from skill_be.results.result_file import ResultEntry, read_result_file, write_result_file

USAGE = {
    "baseline": {"answers": 4, "inputTokens": 120.5, "outputTokens": 60.0, "costUsd": 0.0012},
    "withSkill": {"answers": 4, "inputTokens": 1360.0, "outputTokens": 64.0, "costUsd": 0.0049},
    "estimated": False,
}


def entry(**kw: object) -> ResultEntry:
    e = ResultEntry(date="2026-12-01", fingerprint="v2:abc", ready=True, reasons=[], models=["m"], grader="g")
    return {**e, **kw}  # type: ignore[typeddict-item]


def test_usage_round_trips_and_is_left_out_when_absent(tmp_path: Path) -> None:
    path = tmp_path / "skill-be.result.json"
    write_result_file(path, {"a": entry(usage=USAGE), "b": entry()})
    doc = json.loads(path.read_text())
    assert doc["skills"]["a"]["usage"] == USAGE and "usage" not in doc["skills"]["b"]
    read = read_result_file(path)
    assert read is not None and read.skills["a"].get("usage") == USAGE and "usage" not in read.skills["b"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda u: u["withSkill"].update(inputTokenz=3), 'unknown key "inputTokenz" (did you mean "inputTokens"?)'),
        (lambda u: u.update(withskill={}), 'unknown key "withskill" (did you mean "withSkill"?)'),
        (lambda u: u["baseline"].update(costUsd=-1), "skills.a.usage.baseline.costUsd"),
        (lambda u: u.pop("estimated"), 'skills.a.usage: missing required key "estimated"'),
    ],
)
def test_a_hand_edited_usage_is_one_line_naming_the_key(tmp_path: Path, edit: object, message: str) -> None:
    path = tmp_path / "skill-be.result.json"
    write_result_file(path, {"a": entry(usage=json.loads(json.dumps(USAGE)))})
    doc = json.loads(path.read_text())
    edit(doc["skills"]["a"]["usage"])  # type: ignore[operator]
    path.write_text(json.dumps(doc, indent=2))
    with pytest.raises(ConfigError) as e:
        read_result_file(path)
    assert message in str(e.value) and "\n" not in str(e.value)
