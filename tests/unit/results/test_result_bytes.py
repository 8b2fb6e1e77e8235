"""The result file keeps its bytes: every result file under tests/ read and written again is the same
file, by either reading path, and the model's own dump (`results/models.py`) gives those bytes, so
the one description of the file is the one the writer follows. `tests/fixtures/result/` holds files
as the writer wrote them before it followed the model (a run's, every key, the minimum), and files
another writer left (the Node tool's, a later version's) with what rewriting them gives (`*.written.json`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from skill_be import __version__
from skill_be.errors import ConfigError
from skill_be.project import fields
from skill_be.project.fields import MapOf
from skill_be.results import models, result_file
from skill_be.results.result_file import read_result_file, write_result_file

TESTS = Path(__file__).resolve().parents[2]
FIXTURES = TESTS / "fixtures" / "result"
WRITTEN = ".written.json"


def _readable(path: Path) -> bool:
    try:
        return read_result_file(path) is not None
    except ConfigError:  # tests/corpus/bad_input: files that must be refused
        return False


def cases() -> list[tuple[Path, Path]]:
    """(a result file under tests/, the bytes writing it again must give)."""
    found = sorted({*TESTS.rglob("*.result.json"), *FIXTURES.glob("*.json")})
    found = [p for p in found if not p.name.endswith(WRITTEN) and p.is_file() and _readable(p)]
    return [(p, p.with_name(p.name.removesuffix(".json") + WRITTEN)) if p.with_name(p.name.removesuffix(".json") + WRITTEN).exists() else (p, p) for p in found]  # fmt: skip


CASES = cases()
IDS = [str(p.relative_to(TESTS)) for p, _ in CASES]


def expected(path: Path) -> str:
    """The file's text with this skill-be's version (the writer records its own)."""
    return path.read_text(encoding="utf-8").replace('"skillBeVersion": "1.0.0"', f'"skillBeVersion": "{__version__}"')


def rewritten(source: Path, tmp_path: Path) -> str:
    back = read_result_file(source)
    assert back is not None
    out = tmp_path / "skill-be.result.json"
    write_result_file(out, back.skills)
    return out.read_text(encoding="utf-8")


def the_model_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """Readers take the model's path (project/validation.checked), not the schema's fast one."""
    monkeypatch.setattr("skill_be.project.fastcheck.conforms", lambda fmt, data: False)


def test_the_fixtures_are_found() -> None:
    names = {p.name for p, _ in CASES}
    assert {"run.json", "full.json", "minimal.json", "node-tool.json", "newer.json"} <= names
    full = (FIXTURES / "full.json").read_text(encoding="utf-8")
    assert '"inputTokens": 120,' in full and '"inputTokens": 980.0,' in full  # an int and a float, kept apart


@pytest.mark.parametrize(("source", "want"), CASES, ids=IDS)
def test_reading_and_writing_again_keeps_the_bytes(tmp_path: Path, source: Path, want: Path) -> None:
    assert rewritten(source, tmp_path) == expected(want)


@pytest.mark.parametrize(("source", "want"), CASES, ids=IDS)
def test_the_models_reading_path_keeps_them_too(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, source: Path, want: Path
) -> None:
    the_model_way(monkeypatch)
    assert rewritten(source, tmp_path) == expected(want)


@pytest.mark.parametrize("path", sorted({w for _, w in CASES}), ids=lambda p: p.name)
def test_the_models_dump_is_the_written_file(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    dumped = models.ResultFileModel.model_validate(json.loads(text)).model_dump(
        by_alias=True, exclude_unset=True, mode="json"
    )
    assert json.dumps(dumped, indent=2, ensure_ascii=False) + "\n" == text


def test_the_writer_puts_keys_in_the_models_order(tmp_path: Path) -> None:
    entry = json.loads((FIXTURES / "full.json").read_text(encoding="utf-8"))["skills"]["alpha"]
    shuffled = {k: entry[k] for k in reversed(entry)}
    shuffled["usage"] = {k: entry["usage"][k] for k in reversed(entry["usage"])}
    shuffled["scores"] = [{k: s[k] for k in reversed(s)} for s in entry["scores"]]
    out = tmp_path / "r.json"
    write_result_file(out, {"alpha": shuffled})
    written = json.loads(out.read_text())["skills"]["alpha"]
    assert json.dumps(written) == json.dumps(entry)  # the same order at every depth


def test_an_entry_its_model_refuses_is_refused_when_made() -> None:
    good: Any = json.loads((FIXTURES / "full.json").read_text(encoding="utf-8"))["skills"]["alpha"]
    assert result_file.checked_entry("alpha", good) is good
    for bad in ({**good, "ready": "yes"}, {**good, "usage": {**good["usage"], "estimated": None}}):
        with pytest.raises(ValueError, match=r"ready|estimated"):
            result_file.checked_entry("alpha", bad)
    # an optional key set to None is left out, as the writer leaves it out
    assert result_file.checked_entry("alpha", {**good, "reps": None})["reps"] is None


# --- controls: the checks above fail on the mistakes they are there for --------------------------


def test_control_a_model_order_other_than_the_files_changes_the_bytes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from skill_be.project.fastcheck import schema

    props = schema("result")["$defs"]["ResultEntryModel"]["properties"]
    order = ["date", "fingerprint", "ready", "reasons", "why", *[k for k in props if k not in ("date", "fingerprint", "ready", "reasons", "why")]]  # fmt: skip
    monkeypatch.setitem(schema("result")["$defs"]["ResultEntryModel"], "properties", {k: props[k] for k in order})
    assert rewritten(FIXTURES / "full.json", tmp_path) != expected(FIXTURES / "full.json")


class _FloatArm(models.ArmUsage):
    input_tokens: fields.Amount = Field(alias="inputTokens")  # the float Amount: 120 read as 120.0
    output_tokens: fields.Amount = Field(alias="outputTokens")


class _FloatUsage(models.UsageModel):
    baseline: _FloatArm
    with_skill: _FloatArm = Field(alias="withSkill")


class _FloatEntry(models.ResultEntryModel):
    usage: _FloatUsage | None = None


class _FloatFile(models.ResultFileModel):
    skills: MapOf(_FloatEntry)  # type: ignore[valid-type]


def test_control_float_amounts_change_an_integer_count(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    the_model_way(monkeypatch)
    monkeypatch.setattr(result_file, "_model", lambda: _FloatFile)
    text = rewritten(FIXTURES / "full.json", tmp_path)
    assert '"inputTokens": 120.0,' in text and text != expected(FIXTURES / "full.json")
