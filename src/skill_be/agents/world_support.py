"""Before any model call: every model under test can give an agent scenario the world it asks for.
A scenario with `mcp` needs a driver that hands MCP servers to its CLI (`takes_mcp`), one with
`followUps` a driver that resumes its session (`resumes`); otherwise the run stops with one line at
the key, exit 2 (a ConfigError)."""

from __future__ import annotations

from collections.abc import Sequence

from skill_be.agents.drivers import DRIVERS, driver
from skill_be.agents.drivers.base import resumes, takes_mcp
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.loader import Skill
from skill_be.project.validation import at_place, path_text

NEEDS = {
    "mcp": (takes_mcp, "cannot take MCP servers"),
    "followUps": (resumes, "cannot send follow-ups in the same session (no resume)"),
}


def able(need: str) -> list[str]:
    """The adapters whose driver can give a scenario `need` ("mcp", "followUps")."""
    test = NEEDS[need][0]
    return [name for name in DRIVERS if test(driver(name))]


def check_world_support(skills: Sequence[Skill], adapters: Sequence[tuple[str, str, str]]) -> None:
    """`adapters`: (label, adapter name, where in the config) of each model under test."""
    for skill in skills:
        for i, sc in enumerate(skill.evals.scenarios):
            world = sc.agent.world if sc.agent is not None else None
            if world is None:
                continue
            for need, present in (("mcp", bool(world.mcp)), ("followUps", bool(world.follow_ups))):
                if not present:
                    continue
                test, words = NEEDS[need]
                for label, adapter, where in adapters:
                    if adapter in DRIVERS and not test(driver(adapter)):
                        loc: list[str | int] = ["scenarios", i, need]
                        place = skill.evals.places.find(loc) if skill.evals.places is not None else None
                        head = path_text(loc[:2])
                        raise ConfigError(
                            f'{at_place(shown(skill.evals.path), place)}: {head} (id "{sc.id}").{need}: model '
                            f'"{label}" ({where}) uses {adapter}, which {words}; use {" or ".join(able(need)) or "none yet"} '
                            f"for this scenario, or remove {need}"
                        )
