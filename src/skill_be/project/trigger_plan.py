"""What trigger evals need from the project, checked before any call: each skill's neighbours (the
config's `neighbours:` folders, by default every other skill folder), the names and descriptions
offered, and the mistakes that stop a run (a neighbour folder without SKILL.md, a skill offered
without a description, `gate.trigger` on a skill without trigger queries)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.loader import Project, Skill, neighbour_dirs
from skill_be.project.skills import read_skill_md
from skill_be.project.triggers import SHOULD, SHOULD_NOT
from skill_be.project.where import Where


class OfferedSkill(NamedTuple):
    folder: Path
    name: str  # front matter name, else the folder name: what the agent sees
    description: str


def _offered(folder: Path, where: Where) -> OfferedSkill:
    md = folder / "SKILL.md"
    if not md.is_file():
        raise where.error(
            f"{shown(folder)} has no SKILL.md; a neighbour is a skill folder (with its SKILL.md): "
            "fix the path or remove it"
        )
    doc = read_skill_md(md)
    if not (doc.description or "").strip():
        raise ConfigError(
            f"{shown(md)}: front matter: no description; trigger evals offer a skill by its name and description, "
            "so write one (description: Use when ...)"
        )
    return OfferedSkill(folder, doc.name, (doc.description or "").strip())


def neighbour_folders(project: Project, skill: Skill) -> list[tuple[Path, Where]]:
    """(folder, where it was named) of each neighbour of `skill`, the skill itself left out."""
    config = project.config
    if config.neighbours is None:
        return [(p, config.where("skills")) for p in neighbour_dirs(config, skill.dir)]
    named = [(p, config.where("neighbours", i)) for i, p in enumerate(config.neighbours)]
    return [(p, w) for p, w in named if p.resolve() != skill.dir.resolve()]


def offered_skills(project: Project, skill: Skill, description: str | None = None) -> list[OfferedSkill]:
    """The skill (with `description` in place of its own when given) and its neighbours, by name."""
    me = _offered(skill.dir, Where(shown(skill.skill_md)))
    if description is not None:
        me = me._replace(description=description.strip())
    out = [me]
    for folder, where in neighbour_folders(project, skill):
        n = _offered(folder, where)
        if n.name == me.name:
            raise where.error(
                f'the neighbour {shown(folder)} is named "{n.name}", as the skill under test; '
                "an agent cannot tell two skills of one name apart: rename one (front matter name)"
            )
        out.append(n)
    return out


def check_triggers(project: Project, warn: Callable[[str], None]) -> None:
    """Before any call: `gate.trigger` needs trigger queries on every selected skill; every skill with
    queries offers itself and its neighbours; a skill with should and no shouldNot gets a warning."""
    config = project.config
    gate = config.gate.trigger
    for skill in project.skills:
        t = skill.evals.triggers
        if t is None:
            if gate is not None and gate.set:
                raise config.where("gate", "trigger").error(
                    f'skill "{skill.name}" has no trigger queries in {shown(skill.eval_path)}; '
                    "add triggers (should and shouldNot) there, or remove gate.trigger"
                )
            continue
        offered_skills(project, skill)
        if t.of(SHOULD) and not t.of(SHOULD_NOT):
            warn(
                f"warning: {skill.evals.place(('triggers',))}: triggers has should queries and no shouldNot; "
                "a skill that loads on everything scores 100% recall: add shouldNot queries"
            )
