"""The image an agent scenario with an `environment` runs in (the agent and its checks): skill-be's
image with the `environment.files` placed (each chmod-ed to its mode), then the `environment.setup`
commands run as root with the build machine's network, built once per content by
containers.cached_image (the hash of the base image's id, the files and the setup) and reused by
every later run until one of them changes. Built before any model call: a setup that fails stops
the run with one line (the place, the command's last output), exit 2."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from skill_be import containers
from skill_be.agents.workspace import _walk
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.agent_models import AgentScenario
from skill_be.project.loader import Skill
from skill_be.project.validation import at_place, path_text

REPOSITORY = "skill-be-env"
IMAGE_LABELS: Mapping[str, str] = {"skill-be": "environment"}  # tests add their own
OUTPUT_KEPT = 20  # lines of the build's output kept for the message of a failed setup
# What a build's output says when a step needed the network and found none.
NO_NETWORK = re.compile(
    r"Temporary failure in name resolution|Could not resolve|Name or service not known|getaddrinfo|ENOTFOUND|"
    r"EAI_AGAIN|Network is unreachable|No route to host|Failed to establish a new connection|Connection refused",
    re.I,
)


def placed_files(agent: AgentScenario) -> list[containers.PlacedFile]:
    """The scenario's `environment.files`, read from beside its eval file (the load checked that each
    is inside the project and exists)."""
    env = agent.world.environment
    out = []
    for f in env.files if env is not None else ():
        src = (agent.base / f.src).resolve()
        content = {rel: p.read_bytes() for rel, p in _walk(src)} if src.is_dir() else {"": src.read_bytes()}
        out.append(containers.PlacedFile(f.dest, content, f.mode))
    return out


def _where(skill: Skill, index: int, agent: AgentScenario, sid: str) -> str:
    loc: list[str | int] = (
        ["environment", "setup"] if agent.world.file_environment else ["scenarios", index, "environment", "setup"]
    )
    place = skill.evals.places.find(loc) if skill.evals.places is not None else None
    label = path_text(loc)
    if not agent.world.file_environment:
        head = path_text(loc[:2])
        label = f'{head} (id "{sid}")' + label[len(head) :]
    return f"{at_place(shown(skill.evals.path), place)}: {label}"


def failed_setup(where: str, error: str, output: Sequence[str]) -> ConfigError:
    """The one line of a setup that failed: the command's last output and the engine's words."""
    said_by_docker = ("Step ", " ---> ", "Removing intermediate", "Successfully ")
    last = next((line for line in reversed(output) if line.strip() and not line.startswith(said_by_docker)), "")
    last = " ".join(last.split())[:300]
    said = f"{last}; {error}" if last and last != error else error
    hint = "run the command in a container of skill-be's image to see all its output, and fix it"
    if NO_NETWORK.search(" ".join(output[-OUTPUT_KEPT:]) + " " + error):
        hint = "it needs the network, which this build machine does not reach; give the files through environment.files"
    return ConfigError(f"{where}: the environment's setup failed ({said}); {hint}")


def build_images(
    engine: Any, base: str, skills: Sequence[Skill], log: Callable[[str], None] = lambda _line: None
) -> dict[tuple[str, str], str]:
    """(skill name, scenario id) -> the image tag of each docker agent scenario with an environment;
    a ConfigError (one line, the place) for the first setup that fails."""
    images: dict[tuple[str, str], str] = {}
    for skill in skills:
        for i, sc in enumerate(skill.evals.scenarios):
            agent = sc.agent
            if agent is None or agent.world.environment is None or agent.sandbox != "docker":
                continue
            output: list[str] = []

            def keep(line: str, output: list[str] = output) -> None:
                output.append(line)
                del output[:-OUTPUT_KEPT]
                log(line)

            where = _where(skill, i, agent, sc.id)
            try:
                files = placed_files(agent)
            except OSError as e:
                raise ConfigError(f"{where}: its environment files could not be read ({e})") from None
            try:
                images[(skill.name, sc.id)] = containers.cached_image(
                    engine, base, agent.world.environment.setup, keep, REPOSITORY, files=files, labels=IMAGE_LABELS
                )
            except containers.BuildFailed as e:
                raise failed_setup(where, str(e), output) from None
            except Exception as e:  # the engine refused the build: the same one line
                raise failed_setup(where, containers.short(e), output) from None
    return images
