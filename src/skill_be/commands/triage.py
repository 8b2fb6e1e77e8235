"""`skill-be triage`: fresh with-skill samples of each failing line of the latest run, graded with
reasons, and a proposed classification for a person to confirm. Never blocks."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from skill_be.engine.triage import Failure, Triage
from skill_be.paths import shown
from skill_be.project.loader import Project, load_project
from skill_be.reports.triage import triage_lines, triage_report
from skill_be.results.atomic import write_atomic
from skill_be.results.run_dir import latest_run, run_id
from skill_be.results.summary_file import failures, read_summary
from skill_be.wiring.assembly import assemble, engine_settings, interruptible
from skill_be.wiring.common import warn

MODEL_FREE = ("[assert] ", "[budget] ")  # lines graded without a model (engine/assertions.py)


def main(
    config_path: Path, skills: Sequence[str] = (), below: int | None = None, samples: int = 2, keep_deps: bool = False
) -> int:
    return asyncio.run(interruptible(lambda: _triage(config_path, list(skills), below, samples, keep_deps)))


async def _triage(config_path: Path, names: list[str], below: int | None, samples: int, keep_deps: bool) -> int:
    project = load_project(config_path, names, warn=warn)
    config = project.config
    run_dir = latest_run(config.results, "triage", config.path)
    summary = read_summary(run_dir / "summary.json")  # through its model: a broken file is one line
    # Assertion and budget lines carry their evidence in the report already and have no judge to ask.
    todo = [f for f in failures(summary, [s.name for s in project.skills], below) if not f.line.startswith(MODEL_FREE)]
    ours = {s.name for s in project.skills}
    errors = {n: s.errors for n, s in summary.skills.items() if n in ours}
    tested = project._replace(
        skills=tuple(s for s in project.skills if any(f.is_test and f.skill == s.name for f in todo))
    )
    async with assemble(
        project,
        models=bool(todo),
        grader=any(not f.is_test for f in todo),
        classifier=bool(todo),
        tested=tested,
        keep_deps=keep_deps,
    ) as parts:
        engine = parts.engine(engine_settings(config), config.concurrency)
        models = {m.label: m for m in parts.models}
        triage = Triage(engine, project, models, parts.classifier, samples, test_sources(project, todo))
        results = await triage.all(todo)
    report = run_dir / f"triage-{run_id(datetime.now().astimezone())}.md"
    write_atomic(report, parts.redactor(triage_report(results, errors, run_dir.name)))
    print(parts.redactor("\n".join([*triage_lines(results, errors), f"Report: {shown(report)}"])))
    return 0


def test_sources(project: Project, todo: Sequence[Failure]) -> dict[tuple[str, str], str]:
    """The test file of each failing code test's scenario, for the classifier."""
    out: dict[tuple[str, str], str] = {}
    for f in todo:
        skill = next(s for s in project.skills if s.name == f.skill)
        if f.is_test and f.scenario in skill.test_files:
            out[(f.skill, f.scenario)] = skill.test_files[f.scenario].read_text(encoding="utf-8", errors="replace")
    return out
