"""What `run` builds for agent scenarios (issue 17): the check that every model can act as an
agent, and the engine's agent side: each model's driver, endpoint and CLI version, the Docker
sandbox and its egress proxy (or the process sandbox the scenario chose), closed on the way out."""

from __future__ import annotations

import importlib
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path, PurePosixPath
from typing import Any

from skill_be import __version__
from skill_be.agents.base import AgentDriver, AgentSetup, Launch, ModelEndpoint, SkillToInstall, Transcript
from skill_be.engine.agent import AgentModel, AgentSandbox, AgentSide, check_agent_models, preflight_checks
from skill_be.engine.runner import Model
from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.loader import Project

IMAGE = f"skill-be:{__version__}"
DriverLookup = Callable[..., AgentDriver]


def neighbours(project: Project) -> list[tuple[str, SkillToInstall]]:
    """The config's `neighbours`: skill folders (paths from the config's folder), installed in both arms
    of agent scenarios. Unset, an agent scenario installs none (trigger evals offer every other skill)."""
    from skill_be.agents.workspace import folder_to_install
    from skill_be.project.skills import read_skill_md

    config = project.config
    out = []
    for i, folder in enumerate(config.neighbours or ()):
        name = folder.name
        if not (folder / "SKILL.md").is_file():
            raise config.where("neighbours", i).error(
                f"{shown(folder)} is not a skill folder (no SKILL.md); give the path of a folder that has one"
            )
        doc = read_skill_md(folder / "SKILL.md")
        out.append((name, folder_to_install(folder, doc.name, doc.description or "")))
    return out


def agent_sandboxes(project: Project) -> set[str]:
    return {sc.agent.sandbox for s in project.skills for sc in s.evals.scenarios if sc.agent is not None}


def check_agents(project: Project) -> None:
    """Before any model call: an agent scenario needs models whose CLI can act as an agent."""
    if not agent_sandboxes(project):
        return
    neighbours(project)  # each names a skill folder
    entries = list(project.config.models)
    from skill_be.adapters.registry import labels

    adapters = [(label, e.adapter, str(e.where.path)) for e, label in zip(entries, labels(entries), strict=True)]
    check_agent_models(project.skills, adapters)


def _drivers() -> DriverLookup:
    # agents/registry.py (the drivers' table) is named by string: it lives with the drivers.
    module = importlib.import_module("skill_be.agents.registry")
    lookup: DriverLookup = module.driver
    return lookup


def _endpoint(model: Model) -> ModelEndpoint:
    adapter: Any = model.adapter
    entry = adapter.entry
    settings = dict(entry.settings)
    api = str(settings.get("api") or "")
    wire = "anthropic" if entry.adapter == "claude-cli" or "anthropic" in api else "openai"
    if entry.adapter != "claude-cli" and not api and settings.get("provider") == "anthropic":
        wire = "anthropic"
    return ModelEndpoint(model=str(entry.id), provider=wire, base_url=adapter.base_url, api_key=adapter.key())


IMAGE_PATH = "/opt/agent-clis/bin:/opt/skill-be/bin:/usr/local/bin:/usr/bin:/bin"  # the CLIs in skill-be's image


def _driver(drivers: DriverLookup, model: Model, kind: str) -> AgentDriver:
    """In the container: the image's CLI; on this machine: the adapter's own binary and the user's PATH."""
    import os

    if kind == "docker":
        return drivers(_adapter_name(model), path=IMAGE_PATH)
    adapter: Any = model.adapter
    return drivers(_adapter_name(model), bin=adapter.executable(), path=os.environ.get("PATH", ""))


def _adapter_name(model: Model) -> str:
    adapter: Any = model.adapter
    return str(adapter.entry.adapter)


def _version(model: Model) -> str:
    from skill_be.proc import StartFailed, run_sync

    adapter: Any = model.adapter
    try:
        done = run_sync([adapter.executable(), "--version"], timeout=30)
    except (StartFailed, Exception):
        return "unknown"
    return done.stdout.decode("utf-8", errors="replace").strip()[:100] or "unknown"


@asynccontextmanager
async def agent_side(
    project: Project, models: list[Model], redact: Callable[[str], str], warn: Callable[[str], None]
) -> AsyncIterator[AgentSide | None]:
    kinds = agent_sandboxes(project)
    if not kinds:
        yield None
        return
    endpoints = {m.label: _endpoint(m) for m in models}
    sandboxes: dict[str, AgentSandbox] = {}
    proxy = None
    if "process" in kinds:
        from skill_be.agents.host_box import WARNING, ProcessSandbox

        warn(WARNING)
        sandboxes["process"] = ProcessSandbox()
    if "docker" in kinds:
        from skill_be.agents.container import DockerMissing, open_docker

        try:
            sandboxes["docker"], proxy = open_docker(IMAGE, list(endpoints.values()))
        except DockerMissing as e:
            raise ConfigError(str(e)) from None
    try:
        preflight_checks(sandboxes, project.skills)  # a check command that is not found: exit 2, no model call
        drivers = _drivers()
        agent_models = {
            m.label: AgentModel({kind: _driver(drivers, m, kind) for kind in kinds}, endpoints[m.label], _version(m))
            for m in models
        }
        yield AgentSide(agent_models, sandboxes, redact, neighbours(project))
    finally:
        for box in sandboxes.values():
            close = getattr(box, "close", None)
            if close is not None:
                close()  # the containers' removals still under way
        if proxy is not None:
            proxy.close()


class _Stored:
    """regrade's stand-in driver: the agent's runs come from the earlier run, never from a CLI."""

    name = "stored"

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
    kinds = agent_sandboxes(project)
    if not kinds:
        yield None
        return
    sandboxes: dict[str, AgentSandbox] = {}
    if "process" in kinds:
        from skill_be.agents.host_box import WARNING, ProcessSandbox

        warn(WARNING)
        sandboxes["process"] = ProcessSandbox()
    if "docker" in kinds:
        from skill_be.agents.container import DockerBoxes, DockerMissing, DockerSandbox, docker_client
        from skill_be.agents.egress import EgressPlan

        try:
            sandboxes["docker"] = DockerSandbox(DockerBoxes(docker_client(), IMAGE), EgressPlan())
        except DockerMissing as e:
            raise ConfigError(str(e)) from None
    stored: dict[str, AgentDriver] = {kind: _Stored() for kind in kinds}
    try:
        agent_models = {m.label: AgentModel(stored, ModelEndpoint(m.label, "anthropic"), "stored") for m in models}
        yield AgentSide(agent_models, sandboxes, redact)
    finally:
        for box in sandboxes.values():
            close = getattr(box, "close", None)
            if close is not None:
                close()
