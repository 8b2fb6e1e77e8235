"""skill-be.result.json: the committed record of each skill's last run."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from skill_be import __version__
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.files import read_text
from skill_be.project.jsonfile import load_json
from skill_be.results.atomic import write_atomic

if TYPE_CHECKING:
    from pydantic import BaseModel

    from skill_be.engine.runner import SkillRun


class Score(NamedTuple):
    """One line's pass counts on one model, per arm: the result file's `scores` entries."""

    model: str
    scenario: str
    line: str  # the criterion, or "[test] <name>"
    kind: str  # criterion | test
    critical: bool
    baseline: tuple[int, int]  # passed, total
    with_skill: tuple[int, int]

    def to_json(self) -> dict[str, object]:
        return {
            "model": self.model,
            "scenario": self.scenario,
            "line": self.line,
            "kind": self.kind,
            "critical": self.critical,
            "baseline": {"passed": self.baseline[0], "total": self.baseline[1]},
            "withSkill": {"passed": self.with_skill[0], "total": self.with_skill[1]},
        }


class ResultEntry(NamedTuple):
    date: str
    fingerprint: str
    ready: bool
    reasons: tuple[str, ...]
    models: tuple[str, ...]
    grader: str
    scores: tuple[Score, ...] | None = None  # None: not recorded (the Node tool's files); verify ignores it
    gate: Mapping[str, object] | None = None  # the rule and levels that decided (engine.gate.Levels.to_json)
    triggers: Mapping[str, object] | None = None  # trigger evals' scores (results/triggers.py), no calls
    reps: int | None = None  # the reps it ran with; None in older files (verify skips the check)
    inputs: Mapping[str, str] | None = None  # each fingerprint part's hash (project/fingerprint.py v2)
    usage: Mapping[str, object] | None = None  # tokens and cost per answer (engine/pricing.answer_usage)
    # the reasons as data (engine/reasons.py, reports/gate.py recorded_reasons); None in older files
    why: tuple[Mapping[str, str], ...] | None = None

    def to_json(self) -> dict[str, object]:
        doc: dict[str, object] = {
            "date": self.date,
            "fingerprint": self.fingerprint,
            "ready": self.ready,
            "reasons": list(self.reasons),
            "models": list(self.models),
            "grader": self.grader,
        }
        if self.why is not None:
            doc["why"] = [dict(w) for w in self.why]
        if self.scores is not None:
            doc["scores"] = [s.to_json() for s in self.scores]
        if self.gate is not None:
            doc["gate"] = dict(self.gate)
        if self.triggers is not None:
            doc["triggers"] = dict(self.triggers)
        if self.reps is not None:
            doc["reps"] = self.reps
        if self.inputs is not None:
            doc["inputs"] = dict(sorted(self.inputs.items()))
        if self.usage is not None:
            doc["usage"] = dict(self.usage)
        return doc


class ResultFile(NamedTuple):
    version: str
    skills: Mapping[str, ResultEntry]


_FIX = 'restore it from git, or delete it (the next "skill-be run" writes a new one)'


def read_result_file(path: Path) -> ResultFile | None:
    """The result file, None when there is none; a broken one is a ConfigError saying what is wrong."""
    if not path.exists():
        return None
    name = shown(path)
    text = read_text(path, what="result file")
    data = load_json(text, name, _FIX)
    from skill_be.project.places import Places
    from skill_be.project.validation import checked

    try:
        lenient = _foreign(data) or _newer(_version_of(data))
        d = checked("result", _model, data, name, Places(text, "json"), _key_path, lenient)
    except ConfigError as e:
        raise ConfigError(f"{e}; {_FIX}") from None
    return ResultFile(version=d["skillBeVersion"], skills={k: _entry(e) for k, e in d["skills"].items()})


def _key_path(loc: Sequence[str | int], key: str | None) -> str:
    """Where an error is, the unknown key's own path included (`skills.x.redy: unknown key "redy"`)."""
    from skill_be.project.validation import path_text

    return path_text(loc if key is None else [*loc, key])


def _foreign(data: object) -> bool:
    """Whether the file says another tool wrote it (the Node tool writes `"generator": "@ngwes/skill-be"`;
    skill-be writes no generator): its keys are that tool's, left alone at any version."""
    return isinstance(data, dict) and data.get("generator") not in (None, "skill-be")


def _version_of(data: object) -> str:
    """The version the file names, "" where it names none (the model then says what is missing)."""
    version = data.get("skillBeVersion") if isinstance(data, dict) else None
    return version if isinstance(version, str) else ""


def _newer(version: str) -> bool:
    """Whether the file was written by a later skill-be than this one (or by a later 1.x of the Node tool):
    such a file may carry keys this version does not know yet, and they are left alone."""

    def parts(v: str) -> tuple[int, ...]:
        try:
            return tuple(int(x) for x in v.split("+")[0].split("-")[0].split("."))
        except ValueError:
            return ()

    mine, theirs = parts(__version__), parts(version)
    return not theirs or theirs > mine


def _model() -> type[BaseModel]:
    from skill_be.results.models import ResultFileModel

    return ResultFileModel


def _entry(e: Mapping[str, Any]) -> ResultEntry:
    scores = e.get("scores")
    return ResultEntry(
        date=e["date"],
        fingerprint=e["fingerprint"],
        ready=e["ready"],
        reasons=tuple(e["reasons"]),
        models=tuple(e["models"]),
        grader=e["grader"],
        why=None if e.get("why") is None else tuple(e["why"]),
        scores=None if scores is None else tuple(_score(x) for x in scores),
        gate=e.get("gate"),
        triggers=e.get("triggers"),
        reps=e.get("reps"),
        inputs=e.get("inputs"),
        usage=e.get("usage"),
    )


def _score(x: Mapping[str, Any]) -> Score:
    b, w = x["baseline"], x["withSkill"]
    return Score(x["model"], x["scenario"], x["line"], x["kind"], x["critical"], (b["passed"], b["total"]),
                 (w["passed"], w["total"]))  # fmt: skip


def scores_of(run: SkillRun) -> tuple[Score, ...]:
    """The result file's `scores` of one skill's run: every line's pass counts, model by model."""
    critical = {sl.scenario.id: sl.scenario.critical for sl in run.lines}
    return tuple(
        Score(
            model=x.model,
            scenario=x.scenario,
            line=x.line,
            kind=x.kind,
            critical=critical.get(x.scenario, False),
            baseline=(x.baseline_passed, x.baseline_total),
            with_skill=(x.with_skill_passed, x.with_skill_total),
        )
        for x in run.scores
    )


def write_result_file(path: Path, skills: Mapping[str, ResultEntry]) -> None:
    """Rewrite the file atomically, skills in name order, with this version of skill-be."""
    doc = {
        "skillBeVersion": __version__,
        "skills": {name: skills[name].to_json() for name in sorted(skills)},
    }
    write_atomic(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
