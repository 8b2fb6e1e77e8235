"""`skill-be triggers [skill...] --description "new text"`: the trigger queries run with the skill's
current description and with the proposed one, side by side; both rates with intervals and the
difference. Nothing is written and the skill is not changed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from skill_be.engine.triggers import trigger_result
from skill_be.errors import ConfigError, UsageError
from skill_be.paths import shown
from skill_be.project.loader import load_project
from skill_be.project.trigger_plan import check_triggers
from skill_be.reports.triggers import compare_lines
from skill_be.wiring.assembly import assemble, engine_settings, interruptible
from skill_be.wiring.common import warn
from skill_be.wiring.trigger_setup import choosers_for, plan_for


def main(
    config_path: Path,
    skills: Sequence[str] = (),
    description: str | None = None,
    description_file: str | None = None,
    reps: int | None = None,
    concurrency: int | None = None,
) -> int:
    text = _description(description, description_file)
    return asyncio.run(interruptible(lambda: _compare(config_path, list(skills), text, reps, concurrency)))


def _description(text: str | None, file: str | None) -> str:
    if (text is None) == (file is None):
        raise UsageError('needs the proposed description: --description "..." or --description-file <file>', "triggers")
    if file is not None:
        path = Path(file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise UsageError(f"--description-file: cannot read {shown(path)} ({e.strerror or e})", "triggers") from None
    assert text is not None
    if not text.strip():
        raise UsageError("the proposed description is empty; write the one line that should decide loading", "triggers")
    return " ".join(text.split())


async def _compare(config_path: Path, names: list[str], text: str, reps: int | None, concurrency: int | None) -> int:
    project = load_project(config_path, names, warn=warn)
    check_triggers(project, warn)
    from skill_be.agents.preflight import check_agent_providers

    check_agent_providers(project.skills, project.config.models)  # agent CLIs' providers, before any call
    skills = [s for s in project.skills if s.evals.triggers is not None]
    if not skills:
        raise ConfigError(
            f"{project.config.name}: no selected skill has trigger queries; add triggers (should and shouldNot) "
            "to its eval file"
        )
    settings = engine_settings(project.config, reps)
    # tested: no skill, so no code-test sandbox is opened for a comparison that runs no scenario
    async with assemble(project, tested=project._replace(skills=())) as parts:
        engine = parts.engine(settings, concurrency or project.config.concurrency)
        lines: list[str] = []
        for i, skill in enumerate(skills):
            now = plan_for(project, skill, settings.reps)
            new = plan_for(project, skill, settings.reps, text)
            assert now is not None and new is not None
            current, proposed = await asyncio.gather(
                trigger_result(engine, now, i, choosers_for(parts)),
                trigger_result(engine, new, i, choosers_for(parts, {skill.name: text})),
            )
            lines += compare_lines(skill.name, current, proposed)
    print("\n".join([f'Proposed description: "{text}"', *lines]), flush=True)
    return 0
