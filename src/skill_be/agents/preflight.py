"""Before any model call: what an agent scenario needs is there. Every model under test can act as an
agent (its adapter is in the drivers' table), a CLI that runs in skill-be's container has a key that
reaches it (a stored login never does), the config's neighbours are skill folders, and every check
command's program exists where the checks run (one lookup in each box). Each mistake is a
ConfigError naming the file, the place and the fix. A `bin` that the container does not use is a
warning; and where every use of a CLI is in the container, this machine need not have it
(`host_needs_clis`)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

from skill_be.adapters.credentials import api_key
from skill_be.adapters.registry import labels
from skill_be.agents.boxes import AgentBox
from skill_be.agents.drivers import DRIVERS, driver
from skill_be.agents.drivers.base import SkillToInstall, needs_key
from skill_be.agents.skills import read_skill
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.config import AdapterEntry
from skill_be.project.loader import Skill
from skill_be.project.validation import at_place, path_text
from skill_be.project.where import Where


def box_kinds(skills: Sequence[Skill]) -> set[str]:
    """The boxes the skills' agent scenarios run in (`agent.sandbox`)."""
    return {sc.agent.sandbox for s in skills for sc in s.evals.scenarios if sc.agent is not None}


def check_agent_models(skills: Sequence[Skill], adapters: Sequence[tuple[str, str, str]]) -> None:
    """Every model under test can act as an agent when a skill has an agent scenario. `adapters`:
    (label, adapter name, where in the config)."""
    for skill in skills:
        for sc in skill.evals.scenarios:
            if sc.agent is None:
                continue
            for label, adapter, where in adapters:
                if adapter not in DRIVERS:
                    raise ConfigError(
                        f'{skill.evals.at(sc.id, "mode")}: scenario "{sc.id}" is an agent scenario, and model "{label}" '
                        f"({where}) uses adapter {adapter}, which cannot act as an agent; use "
                        f"{', '.join(DRIVERS)} for agent scenarios, or put them in another config"
                    )


def in_container(skills: Sequence[Skill]) -> list[tuple[Skill, str]]:
    """(skill, scenario id) of each agent scenario that runs in skill-be's container (or its own image)."""
    return [
        (s, sc.id) for s in skills for sc in s.evals.scenarios if sc.agent is not None and sc.agent.sandbox == "docker"
    ]


def host_needs_clis(skills: Sequence[Skill]) -> bool:
    """Whether a model's CLI runs on this machine: a one-shot scenario, an agent scenario in the process
    box, or a trigger eval (trigger evals through an agent CLI run here). False when every scenario is
    an agent scenario in the container: then only the image's CLI runs, and this machine needs none."""
    for s in skills:
        if s.evals.triggers is not None:
            return True
        if any(sc.agent is None or sc.agent.sandbox != "docker" for sc in s.evals.scenarios):
            return True
    return False


def check_container_keys(
    skills: Sequence[Skill], models: Sequence[AdapterEntry], environ: Mapping[str, str], warn: Callable[[str], None]
) -> None:
    """Each agent CLI that runs in the container gets its key there: a stored login (no `apiKeyEnv`, or
    one that is empty) never reaches it, so the run would fail on every call ("Not logged in"). Its
    `bin` is not used there (the image's CLI runs): a warning. `models`: the config's models under test."""
    boxed = in_container(skills)
    if not boxed:
        return
    skill, scenario = boxed[0]
    for label, entry in zip(labels(list(models)), models, strict=True):
        if entry.adapter not in DRIVERS or not needs_key(driver(entry.adapter)):
            continue
        if api_key(entry, environ) is None:
            var = entry.settings.get("apiKeyEnv")
            why = f"{var} is unset or empty" if isinstance(var, str) else "it has no apiKeyEnv"
            raise entry.where.error(
                f'model "{label}" ({entry.adapter}) runs agent scenario "{scenario}" of {skill.name} in skill-be\'s '
                f"container, where a stored login is never read, and {why}; set apiKeyEnv to the variable that "
                f"holds its key (and export it), or give the scenario agent.sandbox: process"
            )
        if "bin" in entry.settings:
            cli = entry.adapter.removesuffix("-cli")
            warn(
                f"warning: {entry.where.key('bin').shown()}: not used by the agent scenarios in skill-be's container (the image's own {cli} "
                f"runs there); it is used on this machine only"
            )


def check_agent_providers(skills: Sequence[Skill], models: Sequence[AdapterEntry]) -> None:
    """An agent CLI that runs as an agent (agent scenarios, trigger evals) gets a fresh home, so only a
    provider its driver drives (`providers`: openai, anthropic) or one given by `baseUrl` can work; a
    provider of the user's own CLI setup (pi's models.json, opencode's config) cannot be read there.
    One rule for both features, checked before any call (one-shot calls read the user's setup)."""
    if not any(s.evals.triggers is not None or any(sc.agent for sc in s.evals.scenarios) for s in skills):
        return
    for label, entry in zip(labels(list(models)), models, strict=True):
        provider = entry.settings.get("provider")
        if entry.adapter not in DRIVERS or not isinstance(provider, str) or entry.settings.get("baseUrl"):
            continue
        speaks = driver(entry.adapter).providers
        if provider not in speaks:
            raise entry.where.key("provider").error(
                f'model "{label}" ({entry.adapter}): "{provider}" is not a provider skill-be can give the CLI when it '
                f"runs as an agent (agent scenarios and trigger evals start it with a fresh home, so your own "
                f"setup's providers are not read); use {' or '.join(speaks)}, or give baseUrl (and api) for it"
            )


def read_neighbours(folders: Sequence[Path], where: Callable[[int], Where]) -> list[tuple[str, SkillToInstall]]:
    """The config's `neighbours` (skill folders installed in both arms), each read; a folder without
    a SKILL.md is a ConfigError at its place (`where(i)`)."""
    from skill_be.project.skills import read_skill_md

    out = []
    for i, folder in enumerate(folders):
        if not (folder / "SKILL.md").is_file():
            raise where(i).error(
                f"{shown(folder)} is not a skill folder (no SKILL.md); give the path of a folder that has one"
            )
        doc = read_skill_md(folder / "SKILL.md")
        out.append((folder.name, read_skill(folder, doc.name, doc.description or "")))
    return out


def first_word(command: str) -> str | None:
    """The program a check command starts, where it is a plain name (not a path, an assignment or a
    shell construct): what the preflight looks up."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or not re.fullmatch(r"[A-Za-z0-9._+-]+", words[0]):
        return None
    return words[0]


def check_programs(
    skills: Sequence[Skill], own: Collection[tuple[str, str]] = ()
) -> dict[object, list[tuple[Skill, int, int, str]]]:
    """By box: each check command's program with its place (skill, scenario index, check index). The
    box is the scenario's `agent.sandbox`, or (skill, scenario id) for one in `own` (its image's box)."""
    out: dict[object, list[tuple[Skill, int, int, str]]] = {}
    for skill in skills:
        for i, sc in enumerate(skill.evals.scenarios):
            for j, c in enumerate(sc.agent.checks if sc.agent else ()):
                word = first_word(c.run)
                if word is not None and sc.agent is not None:
                    key: object = (skill.name, sc.id) if (skill.name, sc.id) in own else sc.agent.sandbox
                    out.setdefault(key, []).append((skill, i, j, word))
    return out


def preflight_checks(
    boxes: Mapping[str, AgentBox], skills: Sequence[Skill], own: Mapping[tuple[str, str], AgentBox] | None = None
) -> None:
    """Every check command's program exists where the checks run (one checks run per box for all of
    them; `own`: the box of a scenario with an image of its own); a ConfigError names the first that
    does not."""
    own = own or {}
    for key, found in check_programs(skills, own).items():
        box = own[key] if isinstance(key, tuple) else boxes[str(key)]
        words = sorted({w for *_, w in found})
        rows, error = box.run_checks({}, {}, [(w, f"command -v {w}") for w in words], 60.0)
        if error:
            raise ConfigError(f"the check commands could not be looked up: {error}")
        missing = {r.name for r in rows if r.exit != "0"}
        for skill, i, j, word in found:
            if word in missing:
                loc: list[str | int] = ["scenarios", i, "checks", j]
                place = skill.evals.places.find(loc) if skill.evals.places else None
                where = (
                    "the scenario's environment image"
                    if isinstance(key, tuple)
                    else "skill-be's image"
                    if key == "docker"
                    else "this machine's PATH"
                )
                raise ConfigError(
                    f"{at_place(shown(skill.evals.path), place)}: {path_text(loc)}: {word!r} is not a command in "
                    f"{where}, where the checks run; install it in the workspace's setup or fix the command"
                )
