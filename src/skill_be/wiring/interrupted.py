"""Ctrl-C keeps what was paid for: the answers of a skill that did not finish go into a
partial summary.json (marked `interrupted`), beside their files, so `regrade` can reuse them. Its
verdict is not recorded: the result file keeps only the skills that finished."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from skill_be.engine.gate import ScenarioLines
from skill_be.engine.observations import Output
from skill_be.engine.runner import SkillRun
from skill_be.engine.topup import settle
from skill_be.project.loader import Project, Skill
from skill_be.reports.summary import skill_summary
from skill_be.wiring.common import warn
from skill_be.wiring.run_files import RunFiles


@dataclass(frozen=True)
class _Label:
    label: str


async def _nothing(*_: object) -> None:
    return None


def _lines(skill: Skill, outputs: Sequence[Output]) -> list[ScenarioLines]:
    """Each scenario's lines, its code tests named by the results that came back."""
    lines = []
    for sc in skill.evals.scenarios:
        names = dict.fromkeys(
            r.name for o in outputs if o.scenario == sc.id and o.tests is not None for r in o.tests.results
        )
        lines.append(ScenarioLines(sc, tuple(names)))
    return lines


async def keep_partial(files: RunFiles, project: Project, labels: Sequence[str], reps: int) -> None:
    """summary.json with every unfinished skill's outputs so far; then the caller re-raises."""
    kept = []
    for skill in project.skills:
        outputs = list(files.partial.get(skill.name, ()))
        if skill.name in files.summaries or not outputs:
            continue
        lines = _lines(skill, outputs)
        models = [_Label(label) for label in labels]
        scores, gate = await settle(lines, models, outputs, project.config.gate, reps, False, _nothing)
        run = SkillRun(skill, lines, outputs, scores, gate, 0.0)
        doc = skill_summary(
            run, labels, project.fingerprint(skill), partial(files.file_of, skill.name), files.run_dir.path
        )
        files.summaries[skill.name] = {**doc, "ready": False, "interrupted": True}
        kept.append(f"{skill.name} ({len(outputs)} answer(s))")
    if kept:
        files.meta["interrupted"] = True
        summary = files.summary(None)
        warn(f"kept the answers of the unfinished skills in {summary}: {', '.join(kept)}; skill-be regrade reuses them")
