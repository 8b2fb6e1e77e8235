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

from skill_be.adapters.base import AdapterStartError, Answer, CallContext, Usage
from skill_be.checks import run_checks
from skill_be.commands.assembly import assemble, engine_settings, interruptible
from skill_be.commands.common import warn
from skill_be.commands.run import RunListener, benchmark, check_before_calls, closing
from skill_be.commands.run_files import RunFiles
from skill_be.commands.scale import RunScale, junit_path, write_junit, written_with
from skill_be.engine.cache import MakeCall
from skill_be.engine.prompts import ARMS, model_prompt
from skill_be.engine.runner import Call, CallTag, Model, SkillRun
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.loader import Project, Skill, load_project
from skill_be.reports.markdown import Header
from skill_be.reports.progress import Progress
from skill_be.results.result_file import write_result_file
from skill_be.results.run_dir import RunDir, latest_run
from skill_be.results.summary_file import read_summary
from skill_be.results.summary_models import SkillSummary, UsageSummary

OutputKey = tuple[str, str, str, str, int]  # skill, scenario, model label, arm, rep


def main(
    config_path: Path,
    skills: Sequence[str] = (),
    run: str | None = None,
    junit: str | None = None,
    keep_deps: bool = False,
) -> int:
    return asyncio.run(interruptible(lambda: _regrade(config_path, list(skills), run, junit, keep_deps)))


def earlier_run(results: Path, run: str | None) -> Path:
    """`--run DIR`, or the latest run folder under the results folder."""
    if run is not None:
        path = Path(run)
        if not (path / "summary.json").is_file():
            raise ConfigError(
                f"{shown(path)}: not a run folder (it has no summary.json); pass --run with a folder under "
                f"{shown(results)}"
            )
        return path
    return latest_run(results, "regrade")


class NotCalled:
    """The earlier run's models: regrade never calls them (every generation comes from the files)."""

    def __init__(self, label: str, described: Mapping[str, object]) -> None:
        self.label = label
        self.described = dict(described)

    async def preflight(self) -> None:
        return None

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        raise AdapterStartError("regrade generates nothing")  # pragma: no cover - the call hook answers first

    def describe(self) -> Mapping[str, object]:
        return self.described


class StoredAnswers:
    """The engine's call hook: a generation is the earlier run's answer (or its error); a grading is a
    real call to today's grader."""

    def __init__(self, answers: Mapping[OutputKey, Call], skills: Sequence[str], run_name: str) -> None:
        self.answers = answers
        self.skills = skills
        self.run_name = run_name

    async def call(self, make: MakeCall, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
        if tag.kind != "generate":
            return await make(model, prompt, priority, tag)
        skill = self.skills[priority[0]]
        missing = Call(None, f"run {self.run_name} has no answer for this output", 0.0)
        return self.answers.get((skill, tag.scenario, model.label, tag.arm, tag.rep), missing)


def _usage(u: UsageSummary | None) -> Usage | None:
    return None if u is None else Usage(u.input, u.output)


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
                    out[key] = Call(Answer(text, _usage(o.usage), dict(o.adapter or {})), None, seconds)
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
            seen = [(o.arm, o.prompt_chars) for m in old.models.values() for o in m.outputs]
            if any(arm in sizes and chars != sizes[arm] for arm, chars in seen):
                refused[sc.id] = (
                    f"the prompt its answers were given changed since run {run_name} "
                    "(SKILL.md, withSkillTemplate or the output contract)"
                )
    return refused


async def _regrade(config_path: Path, names: list[str], run: str | None, junit_arg: str | None, keep: bool) -> int:
    project = load_project(config_path, names, warn=warn)
    previous = check_before_calls(project)
    config = project.config
    junit = junit_path(junit_arg)
    earlier_path = earlier_run(config.results, run)
    earlier = read_summary(earlier_path / "summary.json", "pass --run with another run folder")
    name = earlier_path.name
    reps = earlier.reps or config.reps
    settings = engine_settings(config, reps)
    kept: list[Skill] = []
    partial: set[str] = set()
    for skill in project.skills:
        refused = refusal(skill, settings.template, earlier.skills.get(skill.name), name)
        for scenario, why in refused.items():
            warn(f"regrade: {skill.name}/{scenario}: refused: {why}")
        scenarios = tuple(sc for sc in skill.evals.scenarios if sc.id not in refused)
        if refused:
            partial.add(skill.name)
        if scenarios:
            kept.append(skill._replace(evals=skill.evals._replace(scenarios=scenarios)))
    if not kept:
        raise ConfigError(f"{shown(earlier_path)}: no scenario of these skills can be regraded (see above)")
    graded_project: Project = project._replace(skills=tuple(kept))
    models_meta = [m for m in earlier.models or () if m.get("label")]
    models = [Model(str(m["label"]), NotCalled(str(m["label"]), m)) for m in models_meta]
    answers: dict[OutputKey, Call] = {}
    for skill in kept:
        answers.update(stored_answers(earlier_path, skill.name, earlier.skills[skill.name]))
    scale = RunScale(graded_project, cache_on=False)
    started = datetime.now().astimezone()
    graded = any(sc.criteria for s in kept for sc in s.evals.scenarios)
    concurrency = config.concurrency
    async with assemble(graded_project, models=False, grader=graded, keep_deps=keep) as parts:
        header = Header(
            date=started.strftime("%Y-%m-%d"),
            models=[f"{m.get('adapter')}:{m.get('id')}" for m in models_meta],
            labels=[m.label for m in models],
            reps=reps,
            gradings=settings.gradings,
            grader=config.grader.id,
            grader_adapter=config.grader.adapter,
        )
        run_dir = RunDir(config.results, started, parts.redactor)
        run_dir.create()
        described = parts.describe()
        meta = {
            "startedAt": started.isoformat(timespec="milliseconds"),
            "config": str(config.path),
            "regradeOf": str(earlier_path.resolve()),
            "reps": reps,
            "gradings": settings.gradings,
            "concurrency": concurrency,
            "timeoutSeconds": settings.timeout_seconds,
            "models": models_meta,
            "grader": described["grader"],
            "codeTests": described["codeTests"],
            **scale.meta(),
        }
        files = RunFiles(graded_project, run_dir, header, meta, previous, html=False)
        line = (
            f"Regrade: the answers of run {name}, graded again with today's criteria, grader and code tests; "
            "nothing was generated."
        )

        def extras(run_: SkillRun) -> tuple[list[str], dict[str, object]]:
            lines, keys = scale.skill_extras(run_)
            return [line, *lines], keys

        files.extras = extras
        progress = Progress()
        engine = parts.engine(settings, concurrency, RunListener(files, progress, reps))
        engine.models = models
        engine.cache = StoredAnswers(answers, [s.name for s in kept], name)
        try:
            await benchmark(graded_project, engine, files, progress, concurrency)
        finally:
            progress.close()
    verdicts = dict(files.results)  # this regrade's, for the closing lines
    for skill_name in sorted(partial & set(files.results)):
        # a verdict on part of today's scenarios must not stand for the whole skill in the result file
        if skill_name in previous:
            files.results[skill_name] = previous[skill_name]
        else:
            files.results.pop(skill_name)
        warn(f"regrade: {skill_name}: the result file keeps its earlier entry, since some scenarios were refused")
    write_result_file(config.result_file, files.results)
    outcomes = run_checks(project, warn)
    summary = files.summary(outcomes)
    written = written_with(files.written(summary), write_junit(junit, files.summaries) if junit else None)
    return closing(graded_project, verdicts, outcomes, written)
