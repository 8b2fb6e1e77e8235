"""Reading a run's summary.json through its model: a hand-edited, truncated or older file is one
line naming the file, the place and the fix."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.files import read_text
from skill_be.project.jsonfile import load_json

if TYPE_CHECKING:
    from skill_be.engine.triage import Failure
    from skill_be.results.summary_models import SkillSummary, SummaryModel

FIX = 'run "skill-be run" again to write a new one, or delete that run folder'


def read_summary(path: Path, fix: str = FIX) -> SummaryModel:
    """summary.json as its model: every key the model names is there with its type."""
    name = shown(path)
    text = read_text(path, what="summary.json")
    return parse_summary(text, name, fix)


def parse_summary(text: str, name: str, fix: str = FIX) -> SummaryModel:
    from skill_be.project.places import Places
    from skill_be.project.validation import validate
    from skill_be.results.summary_models import SummaryModel

    data = load_json(text, name, fix)
    try:
        return validate(SummaryModel, data, name, Places(text, "json"))
    except ConfigError as e:
        raise ConfigError(f"{e}; {fix}") from None


def typed_skills(skills: Mapping[str, object]) -> dict[str, SkillSummary]:
    """The skills of a summary.json document skill-be built (`reports/summary.py` `skill_summary`), as
    their model, for a report that reads types (JUnit). Read as summary.json holds them (through JSON:
    a tuple is a list there); a ValidationError here is skill-be's bug."""
    import json

    from skill_be.results.summary_models import SkillSummary

    as_written = json.loads(json.dumps(dict(skills), ensure_ascii=False))
    return {name: SkillSummary.model_validate(skill) for name, skill in as_written.items()}


def typed_summary(summary: SummaryModel | Mapping[str, Any]) -> SummaryModel:
    """summary.json's document as its model (one the run is about to write, or one already read)."""
    from skill_be.results.summary_models import SummaryModel

    return summary if isinstance(summary, SummaryModel) else SummaryModel.of(dict(summary))


def failures(summary: SummaryModel, skills: Sequence[str], below: int | None) -> list[Failure]:
    """The lines that blocked the run (a zero on every model, a regression on its model) and, with
    `below`, every line under that percentage with the skill; each (skill, scenario, model, line) once."""
    from skill_be.engine.triage import Failure

    out: dict[tuple[str, str, str, str], Failure] = {}
    for name in skills:
        s = summary.skills.get(name)
        if s is None:
            continue
        labels = list(dict.fromkeys(m for sc in s.scenarios for m in sc.models))
        kinds = {(sc.id, x.line): x.kind for sc in s.scenarios for m in sc.models.values() for x in m.lines}
        for z in s.gate.zero:
            kind = kinds.get((z.scenario, z.line), "criterion")
            for model in labels:
                key = (name, z.scenario, model, z.line)
                out.setdefault(key, Failure(*key, "universal 0%", kind))
        for r in s.gate.regressions:
            key = (name, r.scenario, r.model, r.line)
            kind = kinds.get((r.scenario, r.line), "criterion")
            out.setdefault(key, Failure(*key, f"regression {r.baseline}% → {r.with_skill}%", kind))
        if below is None:
            continue
        for sc in s.scenarios:
            for model, m in sc.models.items():
                for line in m.lines:
                    if line.with_skill < below:
                        key = (name, sc.id, model, line.line)
                        why = f"{line.with_skill}% with the skill, below {below}%"
                        out.setdefault(key, Failure(*key, why, line.kind))
    return list(out.values())
