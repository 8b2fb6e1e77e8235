"""`skill-be regrade [skill...] [--run DIR]`: the answers of an earlier run (the latest by default),
graded again with today's criteria, grader settings and code tests; nothing is generated.

The engine runs as in `run`, with one difference: its generation calls are answered from the earlier
run's files (engine/runner.py's call hook). A scenario whose prompt changed since is refused with one
line: its answers no longer answer it. Writes a new run folder whose report names the run it graded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from skill_be.adapters.base import Answer, Usage
from skill_be.engine.calls import Call, CallTag, MakeCall, Model, stand_in
from skill_be.engine.prompts import ARMS, model_prompt
from skill_be.engine.runner import Settings
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.loader import Project, Skill, load_project
from skill_be.reports.markdown import Header
from skill_be.results.result_file import ResultEntry, write_result_file
from skill_be.results.run_dir import RunDir, latest_run
from skill_be.results.summary_file import read_summary
from skill_be.results.summary_models import SkillSummary, SummaryModel, UsageSummary
from skill_be.wiring.agent_parts import regrade_side, stored_agent_record
from skill_be.wiring.assembly import Parts, assemble, engine_settings, interruptible
from skill_be.wiring.common import warn
from skill_be.wiring.pipeline import check_before_calls, drive, finish
from skill_be.wiring.run_files import RunFiles
from skill_be.wiring.scale import Costs, extras_of, junit_path
from skill_be.wiring.trigger_setup import StoredTriggers

OutputKey = tuple[str, str, str, str, int]  # skill, scenario, model label, arm, rep


def main(
    config_path: Path,
    skills: Sequence[str] = (),
    run: str | None = None,
    junit: str | None = None,
    keep_deps: bool = False,
) -> int:
    return asyncio.run(interruptible(lambda: _regrade(config_path, list(skills), run, junit, keep_deps)))


def earlier_run(results: Path, run: str | None, config: Path | None = None) -> Path:
    """`--run DIR`, or the latest run folder under the results folder."""
    if run is not None:
        path = Path(run)
        if not (path / "summary.json").is_file():
            raise ConfigError(
                f"{shown(path)}: not a run folder (it has no summary.json); pass --run with a folder under "
                f"{shown(results)}"
            )
        return path
    return latest_run(results, "regrade", config)


class StoredAnswers:
    """The engine's call hook: a generation is the earlier run's answer (or its error); a grading is a
    real call to today's grader."""

    def __init__(self, answers: Mapping[OutputKey, Call], run_name: str) -> None:
        self.answers = answers
        self.run_name = run_name

    async def call(self, make: MakeCall, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
        if tag.kind != "generate":
            return await make(model, prompt, priority, tag)
        missing = Call(None, f"run {self.run_name} has no answer for this output", 0.0)
        return self.answers.get((tag.skill, tag.scenario, model.label, tag.arm, tag.rep), missing)


def _usage(u: UsageSummary | None) -> Usage | None:
    return None if u is None else Usage(u.input, u.output, u.cache_write or 0, u.cache_read or 0)


def stored_answers(run_path: Path, skill: str, doc: SkillSummary) -> dict[OutputKey, Call]:
    """Every output of one skill in the earlier run: its answer file's text, usage and adapter record."""
    out: dict[OutputKey, Call] = {}
    for sc in doc.scenarios:
        for label, m in sc.models.items():
            for o in m.outputs:
                key = (skill, sc.id, label, o.arm, o.rep)
                seconds = float(o.seconds)
                if o.file:
                    try:
                        text = (run_path / o.file).read_text(encoding="utf-8")
                    except OSError as e:
                        out[key] = Call(None, f"the answer file {o.file} cannot be read ({e.strerror})", 0.0)
                        continue
                    text = text[:-1] if text.endswith("\n") else text  # the run dir adds one newline
                    recorded = o.adapter.model_dump(by_alias=True, exclude_unset=True, mode="json") if o.adapter else {}
                    meta = {**recorded, **stored_agent_record(run_path / o.file)}  # agent scenarios
                    out[key] = Call(Answer(text, _usage(o.usage), meta), None, seconds)
                else:
                    out[key] = Call(None, o.error or "the generation failed", seconds)
    return out


def refusal(skill: Skill, template: str, earlier: SkillSummary | None, run_name: str) -> dict[str, str]:
    """scenario id -> why its answers cannot be regraded (one line each)."""
    by_id = {sc.id: sc for sc in earlier.scenarios} if earlier is not None else {}
    refused: dict[str, str] = {}
    for sc in skill.evals.scenarios:
        old = by_id.get(sc.id)
        if old is None:
            refused[sc.id] = f"run {run_name} has no answers for it; run it with skill-be run"
        elif old.prompt != sc.prompt:
            refused[sc.id] = f"its prompt changed since run {run_name}, so those answers no longer match it"
        else:
            # The prompt the model saw: a changed SKILL.md, template or output contract changes its size.
            sizes = {arm: len(model_prompt(sc, arm, skill.doc.text, template)) for arm in ARMS}
            if sc.agent is not None:  # an agent gets the task alone in both arms (the skill is installed)
                sizes = {arm: len(sc.prompt) for arm in ARMS}
            seen = [(o.arm, o.prompt_chars) for m in old.models.values() for o in m.outputs]
            if any(arm in sizes and chars != sizes[arm] for arm, chars in seen):
                refused[sc.id] = (
                    f"the prompt its answers were given changed since run {run_name} "
                    "(SKILL.md, withSkillTemplate or the output contract)"
                )
    return refused


class Earlier(NamedTuple):
    """The run being regraded: its folder and summary.json."""

    path: Path
    summary: SummaryModel

    @property
    def name(self) -> str:
        return self.path.name

    def models(self) -> list[dict[str, Any]]:
        """summary.json's record of each model under test."""
        return [m for m in self.summary.models or () if m.get("label")]

    def answers(self, skills: Sequence[Skill]) -> StoredAnswers:
        found: dict[OutputKey, Call] = {}
        for skill in skills:
            found.update(stored_answers(self.path, skill.name, self.summary.skills[skill.name]))
        return StoredAnswers(found, self.name)


def regradable(project: Project, earlier: Earlier, template: str) -> tuple[Project, set[str]]:
    """The project with each refused scenario left out (one warning each), and the skills that lost some."""
    kept: list[Skill] = []
    partial: set[str] = set()
    for skill in project.skills:
        refused = refusal(skill, template, earlier.summary.skills.get(skill.name), earlier.name)
        for scenario, why in refused.items():
            warn(f"regrade: {skill.name}/{scenario}: refused: {why}")
        scenarios = tuple(sc for sc in skill.evals.scenarios if sc.id not in refused)
        if refused:
            partial.add(skill.name)
        if scenarios:
            kept.append(skill._replace(evals=skill.evals._replace(scenarios=scenarios)))
    if not kept:
        raise ConfigError(f"{shown(earlier.path)}: no scenario of these skills can be regraded (see above)")
    return project._replace(skills=tuple(kept)), partial


def regrade_meta(
    project: Project, parts: Parts, earlier: Earlier, settings: Settings, started: datetime
) -> dict[str, object]:
    """summary.json's run keys: today's grader and code tests, the earlier run's models; `commit`
    (git's HEAD now) only inside a git repository."""
    from skill_be.results.git_files import resolve

    described = parts.describe()
    commit = resolve(project.config.path.parent, "HEAD")
    return {
        "startedAt": started.isoformat(timespec="milliseconds"),
        "config": str(project.config.path),
        **({"commit": commit} if commit else {}),
        "regradeOf": str(earlier.path.resolve()),
        "reps": settings.reps,
        "gradings": settings.gradings,
        "concurrency": project.config.concurrency,
        "timeoutSeconds": settings.timeout_seconds,
        "models": earlier.models(),
        "grader": described["grader"],
        **({"graders": described["graders"]} if "graders" in described else {}),  # `grader` as a list
        "codeTests": described["codeTests"],
        "cache": None,
    }


def regrade_header(project: Project, earlier: Earlier, settings: Settings, started: datetime) -> Header:
    config = project.config
    return Header(
        date=started.strftime("%Y-%m-%d"),
        models=[f"{m.get('adapter')}:{m.get('id')}" for m in earlier.models()],
        labels=[str(m["label"]) for m in earlier.models()],
        reps=settings.reps,
        gradings=settings.gradings,
        grader=config.grader.id,
        grader_adapter=config.grader.adapter,
    )


def keep_earlier_entries(
    files: RunFiles, partial: set[str], previous: Mapping[str, ResultEntry]
) -> dict[str, ResultEntry]:
    """A verdict on part of today's scenarios must not stand for the whole skill in the result file:
    such a skill keeps its earlier entry. Returns this regrade's verdicts, for the closing lines."""
    verdicts = dict(files.results)
    for skill_name in sorted(partial & set(files.results)):
        if skill_name in previous:
            files.results[skill_name] = previous[skill_name]
        else:
            files.results.pop(skill_name)
        warn(f"regrade: {skill_name}: the result file keeps its earlier entry, since some scenarios were refused")
    write_result_file(files.project.config.result_file, files.results)
    return verdicts


async def _regrade(config_path: Path, names: list[str], run: str | None, junit_arg: str | None, keep: bool) -> int:
    project = load_project(config_path, names, warn=warn)
    previous = check_before_calls(project)
    config = project.config
    junit = junit_path(junit_arg)
    path = earlier_run(config.results, run, config.path)
    earlier = Earlier(path, read_summary(path / "summary.json", "pass --run with another run folder"))
    settings = engine_settings(config, earlier.summary.reps or config.reps)
    graded_project, partial = regradable(project, earlier, settings.template)
    # The earlier run's models are stand-ins: the stored answers hook answers every generation.
    models = [stand_in(m) for m in earlier.models()]
    started = datetime.now().astimezone()
    graded = any(sc.criteria for s in graded_project.skills for sc in s.evals.scenarios)
    lead = (
        f"Regrade: the answers of run {earlier.name}, graded again with today's criteria, grader and code tests; "
        "nothing was generated."
    )
    async with assemble(graded_project, models=False, grader=graded, keep_deps=keep) as parts:
        run_dir = RunDir(config.results, started, parts.redactor)
        run_dir.create()
        meta = regrade_meta(graded_project, parts, earlier, settings, started)
        header = regrade_header(project, earlier, settings, started)
        extras = extras_of(Costs(config), None, [lead])
        files = RunFiles(graded_project, run_dir, header, meta, previous, html=False, extras=extras)
        hook = earlier.answers(graded_project.skills)
        labels = [m.label for m in models]
        # trigger_setup.py: the earlier run's trigger calls, scored and gated with today's gate settings
        stored = StoredTriggers(graded_project, earlier.summary.to_doc(), labels, settings.reps)
        # agent scenarios: the stored records stand for the runs; their checks run again
        async with regrade_side(graded_project, models, parts.redactor, warn) as agents:
            await drive(
                graded_project, parts, files, settings, config.concurrency,
                models=models, hook=hook, agents=agents, triggers=stored,
            )  # fmt: skip
    verdicts = keep_earlier_entries(files, partial, previous)
    return finish(project, files, junit, graded_project, verdicts)
