"""The agent's world in an eval file: the image it works in (`environment`), the MCP servers it can
talk to (`mcp`), what it must have done (`expect.tools`, `expect.skillsLoaded`,
`expect.skillsNotLoaded`) and the turns that follow its first answer (`followUps`).

The models check each key where it is written (the published schema says the same, so the fast path
refuses what they refuse); `check_world` checks what spans keys and needs the places, after the file
is valid; the records (`Environment`, `McpServer`, `ToolExpect`, `World`) are what an agent scenario
carries (`AgentScenario.world`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BeforeValidator, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from skill_be.errors import ConfigError
from skill_be.project.fields import AnyText, NonEmptyTextList, Strict, Text, fail
from skill_be.project.where import type_name

if TYPE_CHECKING:
    from skill_be.project.places import Places

# For the published schema: what the validators below refuse, as patterns (no flags: editors read them).
WORK = "/work"  # the agent's volume (workspace and home): a file placed under it would be hidden
SERVER = r"^[A-Za-z0-9][A-Za-z0-9_-]*$"
ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
SKILL_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
MCP_TOOL = r"^mcp:[A-Za-z0-9][A-Za-z0-9_-]*/\S+$"
TOOL_NAME = r"^(?!mcp:)\S|" + MCP_TOOL  # a CLI's own name, a shared one (shell, read, ...) or mcp:<server>/<tool>
# chmod's octal (755, 0644) or symbolic (+x, u+x, a+rx,go-w) modes.
MODE = r"^(0?[0-7]{3}|[ugoa]*[-+=][rwxX]+(,[ugoa]*[-+=][rwxX]+)*)$"
ABSOLUTE_DEST = r"^/"
UP = r"(^|/)\.\.(/|$)"
UNDER_WORK = r"^/work(/|$)"
SHARED_TOOLS = ("shell", "read", "write", "edit", "skill")


def _pattern(regex: str, words: str) -> Any:
    import re

    compiled = re.compile(regex)

    def check(value: object) -> object:
        if isinstance(value, str) and value.strip() and not compiled.search(value):
            fail(f'"{value}" {words}')
        return value

    return BeforeValidator(check)


class EnvFileModel(Strict):
    """One `environment.files` entry: a file or folder beside the eval file, placed in the image."""

    missing_hint = "a file needs src (beside the eval file) and dest (its absolute path in the image)"

    src: Text = Field(
        description="a file or folder beside the eval file (relative to it, inside the project)",
        json_schema_extra={"not": {"pattern": r"^(/|~|\\|[A-Za-z]:)"}},
    )
    dest: Annotated[
        Text, _pattern(ABSOLUTE_DEST, "must be an absolute path in the image, such as /usr/local/bin/x")
    ] = Field(
        description="its absolute path in the agent's image, outside /work (the workspace's volume)",
        json_schema_extra={
            "allOf": [{"pattern": ABSOLUTE_DEST}, {"not": {"pattern": UP}}, {"not": {"pattern": UNDER_WORK}}]
        },
    )
    mode: Annotated[Text, _pattern(MODE, 'is not a file mode; use octal such as "755" or chmod\'s "+x"')] | None = (
        Field(
            None,
            description='chmod\'s mode for it: "755", "0644", "+x", "u+x,go-w"',
            json_schema_extra={"pattern": MODE},
        )
    )

    @field_validator("src")
    @classmethod
    def _relative(cls, value: str) -> str:
        if value.startswith(("/", "~", "\\")) or (len(value) > 1 and value[1] == ":"):
            fail(f'"{value}" is an absolute path; name a file or folder relative to the eval file')
        return value

    @field_validator("dest")
    @classmethod
    def _in_the_image(cls, value: str) -> str:
        if ".." in PurePosixPath(value).parts:
            fail(f'"{value}" has ".." in it; write the absolute path it means')
        if value.rstrip("/") == WORK or value.startswith(WORK + "/"):
            fail(f'"{value}" is under {WORK}, the agent\'s volume, which hides it; put workspace files in workspace')
        return value


def _setup_list(value: object) -> object:
    if isinstance(value, list) and not value:
        fail("must be a command or a non-empty list of commands")
    return value


Setup = Annotated[
    Annotated[Text, Tag("<command>")] | Annotated[NonEmptyTextList, BeforeValidator(_setup_list), Tag("<commands>")],
    Discriminator(lambda v: "<commands>" if isinstance(v, list) else "<command>"),
]


def _files_list(value: object) -> object:
    if not isinstance(value, list):
        fail(f"must be a list of {{src, dest}} entries, not {type_name(value)}")
    if not value:
        fail("must be a non-empty list of {src, dest} entries")
    return value


class EnvironmentModel(Strict):
    """The image an agent scenario's agent and checks run in: skill-be's image, then `setup` as root
    with the build machine's network, then `files` placed where they belong."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    setup: Setup | None = Field(None, description="shell commands run as root to build the image, in order")
    files: Annotated[list[EnvFileModel], Field(min_length=1), BeforeValidator(_files_list)] | None = Field(
        None, description="files or folders beside the eval file placed in the image: {src, dest, mode}"
    )

    @model_validator(mode="after")
    def _something(self) -> EnvironmentModel:
        if self.setup is None and self.files is None:
            fail("sets nothing; give setup (commands) or files ({src, dest, mode}), or remove it")
        return self


class McpServerModel(Strict):
    """A stdio MCP server the agent's CLI starts inside its container."""

    missing_hint = "an MCP server needs command, the program that starts it"

    command: Text = Field(description="the program that starts the server (in the agent's image)")
    args: Annotated[list[AnyText], BeforeValidator(lambda v: v if isinstance(v, list) else fail(
        f"must be a list of strings, not {type_name(v)}"))] | None = Field(None, description="its arguments")  # fmt: skip
    env: Annotated[dict[str, AnyText], BeforeValidator(lambda v: _env(v))] | None = Field(
        None, description="its environment variables", json_schema_extra={"propertyNames": {"pattern": ENV_NAME}}
    )


def _env(value: object) -> object:
    import re

    if not isinstance(value, dict):
        fail(f"must be a mapping of variable names to strings, not {type_name(value)}")
    for k in value:
        if not isinstance(k, str) or not re.match(ENV_NAME, k):
            fail(f'"{k}" is not a variable name; use letters, digits and "_", not starting with a digit', key=str(k))
    return value


def _servers(value: object) -> object:
    import re

    if not isinstance(value, dict):
        fail(f"must map each server's name to {{command, args, env}}, not {type_name(value)}")
    if not value:
        fail("names no server; add one, such as files: {command: ..., args: [...]}, or remove it")
    for k in value:
        if not isinstance(k, str) or not re.match(SERVER, k):
            fail(
                f'"{k}" cannot name a server (it is written mcp:<server>/<tool>); use letters, digits, "-", "_"',
                key=str(k),
            )
    return value


Servers = Annotated[
    dict[str, McpServerModel],
    BeforeValidator(_servers),
    Field(json_schema_extra={"minProperties": 1, "propertyNames": {"pattern": SERVER}}),
]
ToolName = Annotated[
    Text,
    _pattern(
        TOOL_NAME, "is not a tool name; use shell, read, write, edit, skill, mcp:<server>/<tool> or the CLI's own"
    ),
    Field(json_schema_extra={"pattern": TOOL_NAME}),
]
SkillName = Annotated[
    Text,
    _pattern(SKILL_NAME, 'is not a skill folder\'s name; use letters, digits, ".", "-" and "_"'),
    Field(json_schema_extra={"pattern": SKILL_NAME}),
]


def _names(what: str, least: int = 1) -> Any:
    def check(value: object) -> object:
        if not isinstance(value, list):
            fail(f"must be a list of {what}, not {type_name(value)}")
        if len(value) < least:
            fail(f"must list at least {least} {what}" if least > 1 else f"must be a non-empty list of {what}")
        return value

    return BeforeValidator(check)


class ToolsExpectModel(Strict):
    """`expect.tools`: lines over the transcript's tool calls, in one vocabulary across CLIs."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    called: Annotated[list[ToolName], Field(min_length=1), _names("tool names")] | None = Field(
        None, description="each of these tools was called at least once"
    )
    not_called: Annotated[list[ToolName], Field(min_length=1), _names("tool names")] | None = Field(
        None, alias="notCalled", description="none of these tools was ever called"
    )
    order: Annotated[list[ToolName], Field(min_length=2), _names("tool names", 2)] | None = Field(
        None, description="these calls happened in this order (other calls may come between)"
    )

    @model_validator(mode="after")
    def _something(self) -> ToolsExpectModel:
        if self.called is None and self.not_called is None and self.order is None:
            fail("sets nothing; give called, notCalled or order, or remove it")
        return self


SkillNames = Annotated[list[SkillName], Field(min_length=1), _names("skill names")]


# --- the records -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EnvFile:
    src: str  # as written, relative to the eval file's folder
    dest: str  # absolute, in the image
    mode: str | None


@dataclass(frozen=True)
class Environment:
    """The image of an agent scenario: the file's `environment` with the scenario's keys over it."""

    setup: tuple[str, ...]
    files: tuple[EnvFile, ...]


@dataclass(frozen=True)
class McpServer:
    name: str
    command: str
    args: tuple[str, ...]
    env: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ToolExpect:
    called: tuple[str, ...] = ()
    not_called: tuple[str, ...] = ()
    order: tuple[str, ...] = ()


@dataclass(frozen=True)
class World:
    """What an agent scenario's world adds to it; empty for a scenario that uses none of the keys."""

    environment: Environment | None = None
    mcp: tuple[McpServer, ...] = ()
    tools: ToolExpect | None = None
    skills_loaded: tuple[str, ...] = ()
    skills_not_loaded: tuple[str, ...] = ()
    follow_ups: tuple[str, ...] = ()
    file_environment: bool = False  # the environment is the file's, none of the scenario's own
    used: tuple[str, ...] = field(default=(), compare=False)  # the keys as written


def _commands(setup: object) -> tuple[str, ...]:
    if setup is None:
        return ()
    return (str(setup),) if isinstance(setup, str) else tuple(str(c) for c in setup)  # type: ignore[attr-defined]


def environment_of(own: Mapping[str, Any] | None, file_wide: Mapping[str, Any] | None) -> Environment | None:
    """The scenario's environment: its own `setup` and `files` where given, else the file's."""
    if not own and not file_wide:
        return None
    merged = {**(file_wide or {}), **(own or {})}
    files = tuple(EnvFile(str(f["src"]), str(f["dest"]), f.get("mode")) for f in merged.get("files") or ())
    return Environment(_commands(merged.get("setup")), files)


def world_of(s: Mapping[str, Any], file_environment: Mapping[str, Any] | None) -> World:
    """The world record of a valid agent scenario dict."""
    expect = s.get("expect") or {}
    tools = expect.get("tools")
    servers = s.get("mcp") or {}
    used = [k for k in ("environment", "mcp", "followUps") if s.get(k) is not None]
    used += [f"expect.{k}" for k in ("tools", "skillsLoaded", "skillsNotLoaded") if expect.get(k) is not None]
    return World(
        environment=environment_of(s.get("environment"), file_environment),
        mcp=tuple(
            McpServer(name, str(v["command"]), tuple(v.get("args") or ()), tuple((v.get("env") or {}).items()))
            for name, v in servers.items()
        ),
        tools=ToolExpect(
            tuple(tools.get("called") or ()), tuple(tools.get("notCalled") or ()), tuple(tools.get("order") or ())
        )
        if tools
        else None,
        skills_loaded=tuple(expect.get("skillsLoaded") or ()),
        skills_not_loaded=tuple(expect.get("skillsNotLoaded") or ()),
        follow_ups=tuple(s.get("followUps") or ()),
        file_environment=file_environment is not None and s.get("environment") is None,
        used=tuple(used),
    )


# --- rules across keys, with their places ------------------------------------------------------------

Problem = tuple[tuple[str | int, ...], str]  # a key path inside the scenario (or the file), the words


def world_problems(world: World, max_turns: int, sandbox: str) -> list[Problem]:
    """What a valid agent scenario's world contradicts."""
    out: list[Problem] = []
    t = world.tools
    if t is not None:
        for key, names in (("called", t.called), ("order", t.order)):
            out += [
                (("expect", "tools", key, i), f'"{n}" is also in notCalled; keep it in one of them')
                for i, n in enumerate(names)
                if n in t.not_called
            ]
        declared = {m.name for m in world.mcp}
        for key, names in (("called", t.called), ("notCalled", t.not_called), ("order", t.order)):
            for i, n in enumerate(names):
                server = n.removeprefix("mcp:").split("/", 1)[0] if n.startswith("mcp:") else None
                if server is not None and server not in declared:
                    known = ", ".join(sorted(declared)) or "none"
                    words = f'"{n}" names the MCP server "{server}", which this scenario\'s mcp does not declare'
                    out.append((("expect", "tools", key, i), f"{words} (declared: {known})"))
    out += [
        (("expect", "skillsLoaded", i), f'"{n}" is also in skillsNotLoaded; keep it in one of them')
        for i, n in enumerate(world.skills_loaded)
        if n in world.skills_not_loaded
    ]
    turns = len(world.follow_ups) + 1
    if world.follow_ups and turns > max_turns:
        words = f"the prompt and {turns - 1} follow-up(s) need {turns} turns and agent.maxTurns is {max_turns}"
        out.append((("followUps",), f"{words}; raise agent.maxTurns or drop a follow-up"))
    if world.environment is not None and sandbox == "process":
        where: tuple[str | int, ...] = ("agent", "sandbox") if world.file_environment else ("environment",)
        words = "an environment builds an image, which agent.sandbox: process cannot use"
        out.append((where, f"{words}; use the docker sandbox or remove the environment"))
    return out


def outside_sources(world: World, base: Path, root: Path) -> list[Problem]:
    """Each `environment.files` src that is missing or outside the project (root)."""
    out: list[Problem] = []
    top = root.resolve()
    for i, f in enumerate(world.environment.files if world.environment is not None else ()):
        full = (base / f.src).resolve()
        where = ("environment", "files", i, "src")
        if not full.is_relative_to(top):
            out.append(
                (where, f'"{f.src}" is outside the project; keep environment files inside the folder of skill-be.yaml')
            )
        elif not full.exists():
            out.append((where, f'"{f.src}" does not exist beside the eval file; create it or fix the path'))
    return out


def check_world(scenarios: Sequence[Any], data: Mapping[str, Any], name: str, places: Places, root: Path) -> None:
    """After the file is valid: the first problem of its world as one line with its place. `data` is
    the valid file, `scenarios` its records."""
    from skill_be.project.validation import at_place, path_text

    def stop(loc: list[str | int], words: str, sid: str | None = None) -> ConfigError:
        label = path_text(loc)
        if sid is not None:  # `scenarios[0] (id "fix").mcp`, as the model's errors name a scenario
            head = path_text(loc[:2])
            label = f'{head} (id "{sid}")' + label[len(head) :]
        return ConfigError(f"{at_place(name, places.find(loc))}: {label}: {words}")

    has_agent = any(sc.agent is not None for sc in scenarios)
    if data.get("environment") is not None and not has_agent:
        raise stop(["environment"], "applies to agent scenarios (mode: agent) and this file has none; remove it")
    if data.get("environment") is not None and data["environment"].get("files"):
        # The file's own files are checked where they are written, once.
        file_world = World(environment=environment_of(None, data["environment"]))
        base = next(sc.agent.base for sc in scenarios if sc.agent is not None)
        for keys, words in outside_sources(file_world, base, root):
            raise stop(list(keys), words)
    for i, sc in enumerate(scenarios):
        a = sc.agent
        if a is None:
            continue
        problems = world_problems(a.world, a.max_turns, a.sandbox)
        if not a.world.file_environment:
            problems += outside_sources(a.world, a.base, root)
        for keys, words in problems:
            raise stop(["scenarios", i, *keys], words, sc.id)


__all__ = [
    "SHARED_TOOLS",
    "EnvFile",
    "EnvFileModel",
    "Environment",
    "EnvironmentModel",
    "McpServer",
    "McpServerModel",
    "Servers",
    "SkillNames",
    "ToolExpect",
    "ToolsExpectModel",
    "World",
    "check_world",
    "environment_of",
    "outside_sources",
    "world_of",
    "world_problems",
]
