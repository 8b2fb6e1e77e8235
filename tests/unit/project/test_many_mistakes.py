"""A file with several mistakes reports them all in one run, a line each in file order, up to a bound."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from skill_be.errors import ConfigError
from skill_be.project.config import load_config
from skill_be.project.evals import load_eval
from skill_be.project.loader import load_project
from skill_be.project.validation import MAX_SHOWN

THREE = """\
skills: ./skills
evals: ./evals
reps: three
model:
  adapter: claude-cli
  id: claude-sonnet-5-5
gate:
  blokOnZero: true
"""


def lines_of(action: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as e:
        action()  # type: ignore[operator]
    return str(e.value).splitlines()


def test_three_different_mistakes_are_three_lines_in_file_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "skill-be.yaml").write_text(THREE, encoding="utf-8")
    lines = lines_of(lambda: load_config(tmp_path / "skill-be.yaml"), tmp_path, monkeypatch)
    assert lines == [
        'skill-be.yaml:1:1: missing required key "grader" (the judge: an entry with adapter and id)',
        "skill-be.yaml:3:7: reps: must be a positive integer, not a string",
        'skill-be.yaml:8:3: gate: unknown key "blokOnZero" (did you mean "blockOnZero"?)',
    ]


def test_one_mistake_is_one_line_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fixed = THREE.replace("reps: three", "reps: 3").replace("blokOnZero", "blockOnZero")
    (tmp_path / "skill-be.yaml").write_text(fixed, encoding="utf-8")
    lines = lines_of(lambda: load_config(tmp_path / "skill-be.yaml"), tmp_path, monkeypatch)
    assert lines == ['skill-be.yaml:1:1: missing required key "grader" (the judge: an entry with adapter and id)']


def test_a_misspelt_required_key_is_one_mistake_not_two(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = THREE.replace("reps: three\n", "").replace("gate:\n  blokOnZero: true\n", "gradr:\n  adapter: x\n  id: y\n")
    (tmp_path / "skill-be.yaml").write_text(text, encoding="utf-8")
    lines = lines_of(lambda: load_config(tmp_path / "skill-be.yaml"), tmp_path, monkeypatch)
    assert lines == ['skill-be.yaml:6:1: unknown key "gradr" (did you mean "grader"?)']


def _with_unknown_keys(n: int) -> str:
    return THREE.replace("reps: three\n", "").replace("gate:\n  blokOnZero: true\n", "") + (
        "grader:\n  adapter: claude-cli\n  id: claude-haiku-5-5\ngate:\n"
        + "".join(f"  zzz{i:02d}: true\n" for i in range(n))
    )


def test_the_list_stops_at_the_bound_and_counts_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "skill-be.yaml").write_text(_with_unknown_keys(MAX_SHOWN + 5), encoding="utf-8")
    lines = lines_of(lambda: load_config(tmp_path / "skill-be.yaml"), tmp_path, monkeypatch)
    assert len(lines) == MAX_SHOWN + 1
    assert all('unknown key "zzz' in line for line in lines[:MAX_SHOWN])
    assert lines[0].startswith('skill-be.yaml:10:3: gate: unknown key "zzz00"')
    assert lines[-1] == "and 5 more mistakes; fix these and run again to see them"


def test_control_at_the_bound_every_mistake_is_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "skill-be.yaml").write_text(_with_unknown_keys(MAX_SHOWN), encoding="utf-8")
    lines = lines_of(lambda: load_config(tmp_path / "skill-be.yaml"), tmp_path, monkeypatch)
    assert len(lines) == MAX_SHOWN
    assert not any("more mistake" in line for line in lines)


def test_the_checks_after_the_model_report_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = THREE.replace("reps: three\n", "").replace("gate:\n  blokOnZero: true\n", "") + (
        "grader:\n  adapter: claude-cli\n  id: claude-haiku-5-5\n  template: cod\n  evidence: always\n"
    )
    (tmp_path / "skill-be.yaml").write_text(text, encoding="utf-8")
    lines = lines_of(lambda: load_project(tmp_path / "skill-be.yaml"), tmp_path, monkeypatch)
    # the folders are checked in the same pass (neither exists), every line in file order
    assert [line.split(": ")[0] for line in lines] == [
        "skill-be.yaml:1:9",
        "skill-be.yaml:2:8",
        "skill-be.yaml:9:13",
        "skill-be.yaml:10:13",
    ]
    assert "folder skills does not exist" in lines[0] and "folder evals does not exist" in lines[1]
    assert "grader.template: must be code" in lines[2]
    assert "grader.evidence: must be reported" in lines[3]
    (tmp_path / "skill-be.yaml").write_text(
        THREE.replace("reps: three\n", "").replace(
            "gate:\n  blokOnZero: true\n", "grader:\n  adapter: claude-cli\n  id: claude-haiku-5-5\n"
        ),
        encoding="utf-8",
    )
    lines = lines_of(lambda: load_project(tmp_path / "skill-be.yaml"), tmp_path, monkeypatch)
    assert len(lines) == 2  # neither folder exists: both named at once
    assert "folder skills does not exist" in lines[0]
    assert "folder evals does not exist" in lines[1]


def test_an_eval_file_with_three_mistakes_reports_three(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        '{\n  "scenarios": [\n    {"id": "a", "promt": "p", "criteria": ["c"]},\n'
        '    {"id": "b", "prompt": 3, "criteria": ["c"]},\n    {"id": "c", "prompt": "p", "criteria": [7]}\n  ]\n}\n'
    )
    (tmp_path / "money.json").write_text(text, encoding="utf-8")
    lines = lines_of(lambda: load_eval(tmp_path / "money.json"), tmp_path, monkeypatch)
    assert len(lines) == 3, lines
    assert [line.split(": ")[0] for line in lines] == sorted(
        (line.split(": ")[0] for line in lines), key=lambda p: [int(x) for x in p.split(":")[1:]]
    )
    assert 'unknown key "promt"' in lines[0] and "prompt" in lines[1] and "criteria[0]" in lines[2]


def test_the_command_prints_every_line_and_exits_2(tmp_path: Path) -> None:
    (tmp_path / "skill-be.yaml").write_text(THREE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "skill_be", "run"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert done.stderr.splitlines()[:5] == [
        'skill-be.yaml:1:1: missing required key "grader" (the judge: an entry with adapter and id)',
        "skill-be.yaml:1:9: skills: folder skills does not exist; create it or fix the path",
        "skill-be.yaml:2:8: evals: folder evals does not exist; create it or fix the path",
        "skill-be.yaml:3:7: reps: must be a positive integer, not a string",
        'skill-be.yaml:8:3: gate: unknown key "blokOnZero" (did you mean "blockOnZero"?)',
    ]
    assert "Traceback" not in done.stderr
