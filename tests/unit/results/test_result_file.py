"""skill-be.result.json: read, written atomically, and broken files reported in one line."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from tests.unit.project.placed import unplaced

from skill_be import __version__
from skill_be.errors import ConfigError
from skill_be.results.atomic import write_atomic
from skill_be.results.result_file import ResultEntry, read_result_file, write_result_file

FIX = 'restore it from git, or delete it (the next "skill-be run" writes a new one)'


def entry(ready: bool = True, fingerprint: str = "ab" * 32) -> ResultEntry:
    return ResultEntry(
        date="2026-10-31",
        fingerprint=fingerprint,
        ready=ready,
        reasons=[] if ready else ["Critical regression: split"],
        models=["claude-sonnet-5-5"],
        grader="claude-haiku-5-5",
    )


def test_missing_file_is_none(tmp_path: Path) -> None:
    assert read_result_file(tmp_path / "skill-be.result.json") is None


def test_write_then_read(tmp_path: Path) -> None:
    path = tmp_path / "skill-be.result.json"
    write_result_file(path, {"zeta": entry(False), "alpha": entry()})
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert data == {
        "skillBeVersion": __version__,
        "skills": {
            "alpha": {
                "date": "2026-10-31",
                "fingerprint": "ab" * 32,
                "ready": True,
                "reasons": [],
                "models": ["claude-sonnet-5-5"],
                "grader": "claude-haiku-5-5",
            },
            "zeta": {
                "date": "2026-10-31",
                "fingerprint": "ab" * 32,
                "ready": False,
                "reasons": ["Critical regression: split"],
                "models": ["claude-sonnet-5-5"],
                "grader": "claude-haiku-5-5",
            },
        },
    }
    assert list(data["skills"]) == ["alpha", "zeta"]  # name order: stable diffs
    assert text.endswith("}\n") and "\r" not in text and text.startswith('{\n  "skillBeVersion"')
    back = read_result_file(path)
    assert back is not None
    assert back.version == __version__
    assert dict(back.skills) == {"alpha": entry(), "zeta": entry(False)}


def test_unknown_keys_are_kept_out_but_allowed(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    doc = {"skillBeVersion": "2.0.0", "extra": 1, "skills": {"a": {**dict(entry()), "note": "x"}}}
    path.write_text(json.dumps(doc))
    back = read_result_file(path)
    assert back is not None and back.skills["a"] == entry() and back.version == "2.0.0"


def test_write_is_atomic_and_leaves_no_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "skill-be.result.json"
    write_result_file(path, {"a": entry()})
    write_result_file(path, {"b": entry()})
    assert sorted(p.name for p in path.parent.iterdir()) == ["skill-be.result.json"]
    back = read_result_file(path)
    assert back is not None and list(back.skills) == ["b"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    write_atomic(path, "old\n")

    with pytest.raises(TypeError):
        write_atomic(path, 42)  # type: ignore[arg-type]
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_new_file_mode_follows_the_umask_and_an_existing_mode_is_kept(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = tmp_path / "r.json"
        write_atomic(path, "x")
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
        path.chmod(0o664)
        write_atomic(path, "y")
        assert stat.S_IMODE(path.stat().st_mode) == 0o664
        assert path.read_text() == "y"
    finally:
        os.umask(old)


def test_text_is_utf8_with_lf(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    write_atomic(path, "é\nx\n")
    assert path.read_bytes() == "é\nx\n".encode()


GOOD = dict(entry())


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{", f"r.json: invalid JSON (Expecting property name enclosed in double quotes); {FIX}"),
        ("", f"r.json: invalid JSON (Expecting value); {FIX}"),
        ("[]", f"r.json: must be a mapping of keys to values, not a list; {FIX}"),
        ({"skills": {}}, f'r.json: missing required key "skillBeVersion"; {FIX}'),
        ({"skillBeVersion": "1"}, f'r.json: missing required key "skills"; {FIX}'),
        ({"skillBeVersion": 1, "skills": {}}, f"r.json: skillBeVersion: must be a string, not a number; {FIX}"),
        (
            {"skillBeVersion": "1", "skills": []},
            f"r.json: skills: must be a mapping of keys to values, not a list; {FIX}",
        ),
        (
            {"skillBeVersion": "1", "skills": {"a": 3}},
            f"r.json: skills.a: must be a mapping of keys to values, not a number; {FIX}",
        ),
        (
            {"skillBeVersion": "1", "skills": {"a": {**GOOD, "ready": "yes"}}},
            f"r.json: skills.a.ready: must be true or false, not a string; {FIX}",
        ),
        (
            {"skillBeVersion": "1", "skills": {"a": {**GOOD, "fingerprint": None}}},
            f"r.json: skills.a.fingerprint: must be a string, not null; {FIX}",
        ),
        (
            {"skillBeVersion": "1", "skills": {"a": {**GOOD, "reasons": "x"}}},
            f"r.json: skills.a.reasons: must be a list of strings, not a string; {FIX}",
        ),
        (
            {"skillBeVersion": "1", "skills": {"a": {**GOOD, "models": [1]}}},
            f"r.json: skills.a.models[0]: must be a string, not a number; {FIX}",
        ),
        (
            {"skillBeVersion": "1", "skills": {"a": {k: v for k, v in GOOD.items() if k != "date"}}},
            f'r.json: skills.a: missing required key "date"; {FIX}',
        ),
        (
            {"skillBeVersion": "1", "skills": {"a": {k: v for k, v in GOOD.items() if k != "grader"}}},
            f'r.json: skills.a: missing required key "grader"; {FIX}',
        ),
        (
            '{"skillBeVersion": "1", "skills": {}, "skills": {}}',
            'r.json: key "skills" is written twice in one object; keep one of them',
        ),
    ],
)
def test_broken_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: object, expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "r.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(ConfigError) as e:
        read_result_file(path)
    assert unplaced(str(e.value)) == expected


def test_not_utf8_and_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.json").write_bytes(b'{"skillBeVersion": "\xff"}')
    with pytest.raises(ConfigError, match=r"^r\.json:1: not valid UTF-8 \(byte 0xff\); save the file as UTF-8$"):
        read_result_file(tmp_path / "r.json")
    (tmp_path / "d.json").mkdir()
    with pytest.raises(ConfigError, match=r"^d\.json: is a folder, not a result file; give the path of the file$"):
        read_result_file(tmp_path / "d.json")
