"""What `run` and `regrade` build for agent scenarios, over agents/: the check that every model can act as
an agent, the boxes the scenarios name (each opened by agents/boxes `open_box`, closed on the way out),
each model's driver per box, endpoint and CLI version, and the inputs read from the user's files, all
handed to the engine's agent side (engine/agent.py)."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, asynccontextmanager, contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

from skill_be.agents.boxes import AgentBox, BoxSettings, open_box
from skill_be.agents.drivers import driver, endpoint, version_command
from skill_be.agents.drivers.base import AgentDriver, AgentSetup, Launch, ModelEndpoint, SkillToInstall, Transcript
from skill_be.agents.inputs import read_inputs
from skill_be.agents.preflight import (
    box_kinds,
    check_agent_models,
    check_agent_providers,
    check_container_keys,
    preflight_checks,
    read_neighbours,
)
from skill_be.engine.agent import AgentModel, AgentSide
from skill_be.engine.arms import DEFAULT_ARMS, Arm
from skill_be.engine.runner import Model
from skill_be.project.loader import Project, Skill


def neighbours(project: Project) -> list[tuple[str, SkillToInstall]]:
    """The config's `neighbours`, installed in both arms of agent scenarios. Unset, an agent scenario
    installs none (trigger evals offer every other skill)."""
    config = project.config
    return read_neighbours(config.neighbours or (), lambda i: config.where("neighbours", i))


def check_agents(project: Project, warn: Callable[[str], None]) -> None:
    """Before any model call: an agent scenario needs models whose CLI can act as an agent, and one in
    skill-be's container a key that reaches it (a `bin` it does not use is a warning); and an agent CLI
    run as an agent (these scenarios, trigger evals) a provider it can be given there."""
    from skill_be.adapters.registry import labels

    entries = list(project.config.models)
    check_agent_providers(project.skills, entries)
    if not box_kinds(project.skills):
        return
    neighbours(project)  # each names a skill folder
    adapters = [(label, e.adapter, str(e.where.path)) for e, label in zip(entries, labels(entries), strict=True)]
    check_agent_models(project.skills, adapters)
    check_container_keys(project.skills, entries, os.environ, warn)
    from skill_be.agents.world_support import check_world_support

    check_world_support(project.skills, adapters)  # mcp or followUps on a CLI that cannot


def cli_versions(
    models: Sequence[Model],
    boxes: Mapping[str, AgentBox],
    drivers: Mapping[str, Mapping[str, AgentDriver]] | None = None,
) -> dict[str, dict[str, str]]:
    """label -> box kind -> the CLI's `--version` where it runs: this machine's in the process box, the
    image's in the container (one checks run there for every model; the driver's `version_command`).
    `drivers`: each model's driver per box (`_drivers`), when the caller has made them already."""
    out: dict[str, dict[str, str]] = {m.label: {} for m in models}
    for kind, box in boxes.items():
        if kind == "process":
            for m in models:
                out[m.label][kind] = _version(m)
            continue
        made = [drivers[m.label][kind] if drivers is not None else _driver(m, box) for m in models]
        commands = [(m.label, version_command(d)) for m, d in zip(models, made, strict=True)]
        rows, _error = box.run_checks({}, {}, commands, 60.0) if commands else ([], None)
        said = {r.name: r.output.strip().splitlines() for r in rows if r.exit == "0"}
        for m in models:
            lines = said.get(m.label)
            out[m.label][kind] = lines[0][:100] if lines else "unknown"
    return out


def _version(model: Model) -> str:
    from skill_be.proc import StartFailed, run_sync

    adapter: Any = model.adapter
    try:
        done = run_sync([adapter.executable(), "--version"], timeout=30)
    except (StartFailed, Exception):
        return "unknown"
    return done.stdout.decode("utf-8", errors="replace").strip()[:100] or "unknown"


@contextmanager
def opened_boxes(kinds: set[str], settings: BoxSettings, warn: Callable[[str], None]) -> Iterator[dict[str, AgentBox]]:
    """Each box the scenarios name, closed on the way out (their removals still under way)."""
    with ExitStack() as stack:
        boxes: dict[str, AgentBox] = {}
        for kind in sorted(kinds, reverse=True):  # process first: its warning before Docker starts
            boxes[kind] = box = open_box(kind, settings, warn)
            stack.callback(box.close)
        yield boxes


def shown_skills(skills: Sequence[Skill], arms: Sequence[Arm]) -> list[Skill]:
    """Every version of a skill with agent scenarios that an arm shows."""
    agentic = [s for s in skills if any(sc.agent is not None for sc in s.evals.scenarios)]
    return [v for s in agentic for arm in arms if (v := arm.version(s)) is not None]


@asynccontextmanager
async def agent_side(
    project: Project,
    models: list[Model],
    redact: Callable[[str], str],
    warn: Callable[[str], None],
    arms: Sequence[Arm] = DEFAULT_ARMS,
) -> AsyncIterator[AgentSide | None]:
    kinds = box_kinds(project.skills)
    if not kinds:
        yield None
        return
    endpoints = {m.label: endpoint(m.adapter) for m in models}
    with opened_boxes(kinds, BoxSettings(endpoints=list(endpoints.values())), warn) as boxes:
        own = scenario_boxes(boxes, project.skills, warn)  # a setup that fails: exit 2, no model call
        preflight_checks(boxes, project.skills, own)  # a check command that is not found: exit 2, no model call
        drivers = {m.label: _drivers(m, boxes) for m in models}
        versions = cli_versions(models, boxes, drivers)
        agent_models = {m.label: AgentModel(drivers[m.label], endpoints[m.label], versions[m.label]) for m in models}
        inputs = read_inputs(project.skills, shown_skills(project.skills, arms), neighbours(project))
        yield AgentSide(agent_models, boxes, inputs, redact, own)


def scenario_boxes(
    boxes: dict[str, AgentBox], skills: Sequence[Skill], warn: Callable[[str], None]
) -> dict[tuple[str, str], AgentBox]:
    """(skill, scenario id) -> the box of each agent scenario with an environment: the docker box in the
    scenario's image, built (or found built) here, before any model call."""
    from skill_be.agents.environment import build_images

    docker: Any = boxes.get("docker")
    if docker is None or not hasattr(docker, "in_image"):
        return {}
    if any(sc.agent is not None and sc.agent.world.environment is not None for s in skills for sc in s.evals.scenarios):
        warn("building the agent scenarios' environment images (each is built once and reused)")
    images = build_images(docker.client, docker.image, skills)
    return {key: docker.in_image(tag) for key, tag in images.items()}


def _drivers(model: Model, boxes: Mapping[str, AgentBox]) -> dict[str, AgentDriver]:
    """The model's driver in each box: the image's CLI in a container, the adapter's own binary here."""
    return {kind: _driver(model, box) for kind, box in boxes.items()}


def _driver(model: Model, box: AgentBox) -> AgentDriver:
    adapter: Any = model.adapter
    return driver(str(adapter.entry.adapter), **box.driver_options(adapter.executable))


class _Stored:
    """regrade's stand-in driver: the agent's runs come from the earlier run, never from a CLI."""

    name = "stored"
    providers: tuple[str, ...] = ()
    trigger_tools: tuple[str, ...] = ()

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        raise RuntimeError("regrade runs no agent")

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        raise RuntimeError("regrade runs no agent")


def stored_agent_record(answer_file: Path) -> dict[str, object]:
    """`{"record": ...}` from the `.agent.json` beside an earlier run's answer file, or nothing."""
    path = answer_file.with_name(answer_file.name.removesuffix(".md") + ".agent.json")
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {"record": record} if isinstance(record, dict) else {}


@asynccontextmanager
async def regrade_side(
    project: Project, models: list[Model], redact: Callable[[str], str], warn: Callable[[str], None]
) -> AsyncIterator[AgentSide | None]:
    """regrade's agent side: the stored records stand for the runs; the checks run again (a fresh
    container with no network, or this machine for `agent.sandbox: process`)."""
    kinds = box_kinds(project.skills)
    if not kinds:
        yield None
        return
    with opened_boxes(kinds, BoxSettings(), warn) as boxes:
        own = scenario_boxes(boxes, project.skills, warn)  # the checks run in the scenario's image again
        stored: dict[str, AgentDriver] = {kind: _Stored() for kind in kinds}
        agent_models = {
            m.label: AgentModel(stored, ModelEndpoint(m.label, "anthropic"), dict.fromkeys(stored, "stored"))
            for m in models
        }
        # No neighbours: the stored records stand for the runs, whatever was installed then.
        inputs = read_inputs(project.skills, shown_skills(project.skills, DEFAULT_ARMS))
        yield AgentSide(agent_models, boxes, inputs, redact, own)
