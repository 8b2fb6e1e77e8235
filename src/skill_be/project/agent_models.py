"""The agent scenario's keys in an eval file (`mode: agent`): the models of `workspace`, `agent`,
`checks` and `expect`, and the record (`AgentScenario`) the rest of skill-be reads once the file
is valid. `models.py` names these on `ScenarioModel`; a one-shot scenario never sees them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Annotated, Any

from pydantic import BeforeValidator, Discriminator, Field, Tag, field_validator

from skill_be.errors import ConfigError
from skill_be.project.agent_world import SkillNames, ToolsExpectModel, World, world_of
from skill_be.project.fields import (
    AnyText,
    Flag,
    NonEmptyTextList,
    PositiveInt,
    Strict,
    Text,
    TextList,
    choice,
    fail,
)
from skill_be.project.places import Places
from skill_be.project.validation import at_place, path_text
from skill_be.project.where import type_name

MODES = ("one-shot", "agent")
# For the published schema (the fast path must refuse what the validators below refuse).
ABSOLUTE = r"^(/|~|\\|[A-Za-z]:)"
OUTSIDE = r"^(/|~|\\|[A-Za-z]:)|(^|[/\\])\.\.([/\\]|$)"
_REL_ITEMS: Any = {"type": "string", "minLength": 1, "pattern": r"\S", "not": {"pattern": ABSOLUTE}}
AGENT_SANDBOXES = ("docker", "process")
# keys that need mode: agent
AGENT_KEYS = ("workspace", "agent", "checks", "checkFiles", "expect", "environment", "mcp", "followUps")
MAX_INLINE = 64 * 1024  # characters of one inline workspace file: bigger files go beside the eval file
DEFAULT_MAX_TURNS = 20
DEFAULT_TIMEOUT = 600


def relative_path(value: str) -> str:
    """A path inside the workspace (or beside the eval file): relative, posix, no `..`."""
    p = PurePosixPath(value.replace("\\", "/"))
    if p.is_absolute() or ".." in p.parts or value.startswith("~"):
        fail(f'"{value}" must be a relative path inside the project, without ".." (it is copied into the workspace)')
    if str(p) in ("", "."):
        fail("must name a file or folder, not the folder itself")
    return str(p)


def _inline(value: object) -> object:
    if not isinstance(value, dict):
        fail(f"must be a mapping of file paths to their text, not {type_name(value)}")
    for k, v in value.items():
        if not isinstance(v, str):
            fail(f"must be the file's text (a string), not {type_name(v)}", at=(k,))
        if len(v) > MAX_INLINE:
            fail(
                f"is {len(v)} characters; put a file over {MAX_INLINE} characters beside the eval file and use from",
                at=(k,),
            )
    return value


class WorkspaceModel(Strict):
    """The files the agent starts with."""

    from_: TextList | None = Field(
        None,
        alias="from",
        description="folders or files beside the eval file, copied into the workspace",
        json_schema_extra={"items": _REL_ITEMS},
    )
    files: Annotated[dict[str, AnyText], BeforeValidator(_inline)] | None = Field(
        None,
        description="small inline files: path inside the workspace -> text",
        json_schema_extra={"propertyNames": {"not": {"pattern": OUTSIDE}}},
    )
    git: Flag = Field(False, description="the workspace is a git repository with one commit; the diff is the agent's")

    @field_validator("from_")
    @classmethod
    def _from_paths(cls, value: list[str] | None) -> list[str] | None:
        for i, v in enumerate(value or ()):
            if v.startswith(("/", "~", "\\")) or (len(v) > 1 and v[1] == ":"):
                fail(f'"{v}" is an absolute path; name a folder or file relative to the eval file', at=(i,))
        return value

    @field_validator("files")
    @classmethod
    def _file_paths(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        for k in value or {}:
            try:
                relative_path(k)
            except Exception:
                fail(f'"{k}" is outside the workspace; use a relative path without ".."', key=k)
        return value


class AgentSettingsModel(Strict):
    """The agent's limits and tools, and where it runs."""

    max_turns: PositiveInt(1000) = Field(DEFAULT_MAX_TURNS, alias="maxTurns")  # type: ignore[valid-type]
    timeout_seconds: PositiveInt(24 * 3600) = Field(DEFAULT_TIMEOUT, alias="timeoutSeconds")  # type: ignore[valid-type]
    max_tokens: PositiveInt() | None = Field(None, alias="maxTokens")  # type: ignore[valid-type]
    tools: NonEmptyTextList | None = Field(
        None, description="the CLI's own tool names; default read, write/edit, shell"
    )
    sandbox: choice(AGENT_SANDBOXES, "sandbox") = Field(  # type: ignore[valid-type]
        "docker", description="docker (a container per run) or process (on this machine, no isolation)"
    )


class CheckModel(Strict):
    missing_hint = "a check needs run, the command"

    name: Text | None = None
    run: Text = Field(description="the command, run in the finished workspace; exit 0 passes")


Check = Annotated[
    Annotated[Text, Tag("<command>")] | Annotated[CheckModel, Tag("<check>")],
    Discriminator(lambda v: "<command>" if isinstance(v, str) else "<check>"),
]


class ExpectModel(Strict):
    skill_loaded: Flag | None = Field(None, alias="skillLoaded", description="a line: the agent loaded the skill")
    tools: ToolsExpectModel | None = Field(
        None, description="lines over the agent's tool calls: called, notCalled, order"
    )
    skills_loaded: SkillNames | None = Field(
        None, alias="skillsLoaded", description="neighbour skills the agent must load, a line each"
    )
    skills_not_loaded: SkillNames | None = Field(
        None, alias="skillsNotLoaded", description="neighbour skills the agent must not load, a line each"
    )


# What makes an agent scenario graded without criteria: its checks and expect's lines (the schema's
# branches of ScenarioModel's "needs criteria ..." rule; `has_agent_lines` is the model's).
EXPECT_LINES = ("skillLoaded", "tools", "skillsLoaded", "skillsNotLoaded")
AGENT_GRADED_SCHEMA: list[Any] = [
    {"required": ["checks"]},
    {"required": ["expect"], "properties": {"expect": {"anyOf": [{"required": [k]} for k in EXPECT_LINES]}}},
]


def has_agent_lines(scenario: Any) -> bool:
    """Whether an agent scenario has a line besides criteria, assertions and code tests."""
    e = scenario.expect
    expects = e is not None and any(
        v is not None for v in (e.skill_loaded, e.tools, e.skills_loaded, e.skills_not_loaded)
    )
    return scenario.mode == "agent" and bool(scenario.checks or expects)


_AGENT = {"properties": {"mode": {"const": "agent"}}, "required": ["mode"]}
# The rules check_agent_keys applies, for the published schema (the fast path must refuse the same).
AGENT_SCHEMA_RULES: list[Any] = [
    {"anyOf": [_AGENT, {"not": {"anyOf": [{"required": [k]} for k in AGENT_KEYS]}}]},
    {"anyOf": [{"not": _AGENT}, {"not": {"required": ["output"]}}, {"properties": {"output": {"required": ["file"]}}}]},
    {"properties": {"output": {"properties": {"file": {"not": {"pattern": OUTSIDE}}}}}},
    {"properties": {"checkFiles": {"items": _REL_ITEMS}}},
]
_ATTRS = {
    "workspace": "workspace",
    "agent": "agent",
    "checks": "checks",
    "checkFiles": "check_files",
    "expect": "expect",
    "environment": "environment",
    "mcp": "mcp",
    "followUps": "follow_ups",
}


def check_agent_keys(scenario: Any) -> None:
    """The scenario-wide rules of agent mode (the scenario's model calls this after its fields)."""
    if scenario.mode != "agent":
        for key, attr in _ATTRS.items():
            if getattr(scenario, attr) is not None:
                fail(f'"{key}" is a key of agent scenarios; add mode: agent or remove it', key=key)
        return
    output = scenario.output
    if output is not None:
        if "file" not in output:
            fail('in agent mode needs "file": the file the agent writes, which the code tests import', at=("output",))
        try:
            relative_path(output["file"])
        except Exception:
            fail(
                f'"{output["file"]}" must be a relative path inside the workspace, without ".."', at=("output", "file")
            )
    for i, p in enumerate(scenario.check_files or ()):
        if p.startswith(("/", "~")):
            fail(f'"{p}" is an absolute path; name a folder or file relative to the eval file', at=("checkFiles", i))


@dataclass(frozen=True)
class CheckCommand:
    name: str
    run: str


@dataclass(frozen=True)
class AgentScenario:
    """An agent scenario as the engine reads it: paths resolved, defaults filled."""

    base: Path  # the eval file's folder: `from` and `checkFiles` are relative to it
    sources: tuple[str, ...]  # workspace `from`
    inline: tuple[tuple[str, str], ...]  # workspace `files`
    git: bool
    max_turns: int
    timeout_seconds: int
    max_tokens: int | None
    tools: tuple[str, ...] | None
    sandbox: str
    checks: tuple[CheckCommand, ...]
    check_files: tuple[str, ...]
    skill_loaded: bool | None
    output_file: str | None
    world: World = field(
        default_factory=World
    )  # environment, mcp, expect.tools and the skill lists, followUps (agent_world.py)

    def settings(self) -> dict[str, object]:
        """What decides a run besides the workspace and the skill (for the cache key)."""
        return {
            "maxTurns": self.max_turns,
            "timeoutSeconds": self.timeout_seconds,
            "maxTokens": self.max_tokens,
            "tools": list(self.tools) if self.tools is not None else None,
            "sandbox": self.sandbox,
            "git": self.git,
        }


def check_commands(raw: list[object]) -> tuple[CheckCommand, ...]:
    out: list[CheckCommand] = []
    for i, c in enumerate(raw, 1):
        if isinstance(c, str):
            out.append(CheckCommand(f"check {i}: {c}" if len(c) <= 60 else f"check {i}", c))
        elif isinstance(c, dict):
            run = str(c["run"])
            out.append(CheckCommand(str(c.get("name") or f"check {i}: {run}"), run))
    return tuple(out)


def agent_scenario(s: dict[str, Any], base: Path, file_environment: dict[str, Any] | None = None) -> AgentScenario:
    """The record of a valid scenario dict with `mode: agent` (`file_environment`: the file's own)."""
    ws = s.get("workspace") or {}
    ag = s.get("agent") or {}
    output = s.get("output") or {}
    tools = ag.get("tools")
    return AgentScenario(
        base=base,
        sources=tuple(ws.get("from") or ()),
        inline=tuple((relative_path(k), v) for k, v in (ws.get("files") or {}).items()),
        git=bool(ws.get("git", False)),
        max_turns=int(ag.get("maxTurns", DEFAULT_MAX_TURNS)),
        timeout_seconds=int(ag.get("timeoutSeconds", DEFAULT_TIMEOUT)),
        max_tokens=ag.get("maxTokens"),
        tools=tuple(tools) if tools else None,
        sandbox=str(ag.get("sandbox", "docker")),
        checks=check_commands(list(s.get("checks") or ())),
        check_files=tuple(s.get("checkFiles") or ()),
        skill_loaded=(s.get("expect") or {}).get("skillLoaded"),
        output_file=relative_path(output["file"]) if "file" in output else None,
        world=world_of(s, file_environment),
    )


__all__ = [
    "AGENT_KEYS",
    "MODES",
    "AgentScenario",
    "AgentSettingsModel",
    "Check",
    "CheckCommand",
    "CheckModel",
    "ExpectModel",
    "WorkspaceModel",
    "agent_scenario",
    "check_agent_keys",
]


def outside_paths(s: AgentScenario, root: Path) -> list[tuple[tuple[str | int, ...], str]]:
    """Each `from` and `checkFiles` path that is missing or resolves outside `root` (the project):
    (its key path inside the scenario, the words of the problem)."""
    out: list[tuple[tuple[str | int, ...], str]] = []
    top = root.resolve()
    for keys, paths in ((("workspace", "from"), s.sources), (("checkFiles",), s.check_files)):
        for i, p in enumerate(paths):
            full = (s.base / p).resolve()
            if not full.is_relative_to(top):
                out.append(
                    (
                        (*keys, i),
                        f'"{p}" is outside the project; keep workspace files inside the folder of skill-be.yaml',
                    )
                )
            elif not full.exists():
                out.append(((*keys, i), f'"{p}" does not exist beside the eval file; create it or fix the path'))
    return out


def check_paths(scenarios: Sequence[Any], name: str, places: Places, root: Path) -> None:
    """The first agent scenario's `from` or `checkFiles` path that is missing or outside the project,
    as one line with its place."""
    for i, sc in enumerate(scenarios):
        if sc.agent is None:
            continue
        for keys, words in outside_paths(sc.agent, root):
            loc = ["scenarios", i, *keys]
            raise ConfigError(f"{at_place(name, places.find(loc))}: {path_text(loc)}: {words}")


def fingerprint_parts(
    skill_dir: Path, scenarios: Sequence[Any], neighbours: Sequence[Path] = ()
) -> list[tuple[str, Path]]:
    """What an agent scenario's results also depend on, for the skill's fingerprint: the whole skill
    folder (installed as it is), each workspace `from`, `checkFiles` and `environment.files` path, and
    the neighbours. Nothing for a skill without agent scenarios (its fingerprint stays as it was)."""
    from skill_be.project.fingerprint import tree_files

    agents = [sc for sc in scenarios if sc.agent is not None]
    if not agents:
        return []
    parts = list(tree_files(skill_dir, "skill-folder"))
    for folder in neighbours:
        parts += tree_files(folder, f"neighbour/{folder.name}")
    for sc in agents:
        env = sc.agent.world.environment
        image = tuple(f.src for f in env.files) if env is not None else ()
        for kind, paths in (
            ("workspace", sc.agent.sources),
            ("checkFiles", sc.agent.check_files),
            ("environment", image),
        ):
            for p in paths:
                full = sc.agent.base / p
                label = f"{kind}/{sc.id}/{p}"
                parts += tree_files(full, label) if full.is_dir() else [(label, full)] if full.is_file() else []
    return parts
