"""How skill-be drives an agent CLI (Claude Code, pi, opencode) as an agent: the one interface every
driver implements, the values a launch is made of, and the transcript every driver's event stream is
parsed into.

A driver only builds a launch (argv, environment, files) and parses what the CLI printed; where the
launch runs (an agent box: a container, or this machine when the user chose `sandbox: process`) is
the box's business (agents/boxes/). Paths are given to the driver, so the same driver serves both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Protocol

from skill_be.adapters.base import Usage


@dataclass(frozen=True)
class AgentLimits:
    """What ends a run that goes on: turns, wall time, and (where the CLI supports it) tokens."""

    max_turns: int = 20
    timeout_seconds: float = 600.0
    max_tokens: int | None = None


@dataclass(frozen=True)
class ModelEndpoint:
    """The model the agent talks to. `base_url` None means the provider's default host."""

    model: str
    provider: str  # "anthropic" | "openai" (the wire format the CLI speaks to it)
    base_url: str | None = None
    api_key: str | None = None  # passed to the CLI's environment only, never written to a file


@dataclass(frozen=True)
class SkillToInstall:
    """A skill folder offered to the agent: its name (front matter `name`, else the folder name)
    and where its files are (on the machine that prepares the launch)."""

    name: str
    description: str
    files: Mapping[str, bytes]  # path inside the skill folder (posix, relative) -> content


@dataclass(frozen=True)
class McpServerSpec:
    """A stdio MCP server the agent's CLI starts in the box: its name (`mcp:<name>/<tool>` in the
    shared vocabulary), the program, its arguments and environment."""

    name: str
    command: str
    args: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentSetup:
    """One agent run: the prompt, the model, the skills installed where the CLI discovers them (the
    skill under test and any neighbours in the with-skill arm; only the neighbours in the baseline),
    the tools the agent may use (the CLI's own names; None = the driver's default: read, write/edit
    and shell), and the limits."""

    prompt: str
    endpoint: ModelEndpoint
    skills: Sequence[SkillToInstall] = ()
    tools: Sequence[str] | None = None
    limits: AgentLimits = field(default_factory=AgentLimits)
    mcp: Sequence[McpServerSpec] = ()  # stdio MCP servers the CLI starts (a driver with `takes_mcp`)
    follow_ups: Sequence[str] = ()  # sent in the same session after each answer (a driver with `resumes`)


@dataclass(frozen=True)
class Launch:
    """What to start: argv (argv[0] is the CLI's name or path), the whole environment the CLI gets
    (nothing else of skill-be's leaks in), and the files to write before it starts, by absolute path
    (skill folders, settings, the CLI's config). `cwd` is the workspace."""

    argv: Sequence[str]
    env: Mapping[str, str]
    files: Mapping[PurePosixPath, bytes]
    cwd: PurePosixPath
    # The follow-up turns: each argv run after the one before it exited 0, with the same environment
    # and workspace, in the same box and under the same time limit; their outputs follow the first's.
    then: Sequence[Sequence[str]] = ()


@dataclass(frozen=True)
class ToolCall:
    """One tool call the agent made: the CLI's tool name, its arguments, a bounded result, the turn."""

    name: str
    arguments: Mapping[str, object]
    result: str | None = None  # bounded; None when no result was seen
    is_error: bool = False
    turn: int = 0


@dataclass(frozen=True)
class Transcript:
    """What one agent run did, the same shape for every CLI."""

    final_message: str
    turns: int
    tool_calls: Sequence[ToolCall] = ()
    skills_offered: Sequence[str] | None = None  # None when the stream does not list them
    # Skills loaded, by name, with the turn of the first load (the skill tool called with its name,
    # or its SKILL.md read from where it was installed).
    skills_loaded: Mapping[str, int] = field(default_factory=dict)
    input_tokens: int | None = None  # every input token, the cached ones included
    output_tokens: int | None = None
    cost_usd: float | None = None
    error: str | None = None  # the CLI's own error (limit reached, API error), None when it finished
    # Of input_tokens, those the provider's prompt cache wrote and read, where the stream says so.
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    @property
    def usage(self) -> Usage:
        """The run's tokens as every call's are counted (pricing, the report, the cache)."""
        return Usage(self.input_tokens, self.output_tokens, self.cache_write_tokens, self.cache_read_tokens)


class AgentDriver(Protocol):
    """One agent CLI. `name` is the driver's own name ("claude", "pi", "opencode"); `providers` the wire
    formats its CLI speaks ("anthropic", "openai"); `trigger_tools` the tools a trigger call offers
    (look around, never write or run: the skill tool is always on)."""

    name: str
    providers: tuple[str, ...]
    trigger_tools: tuple[str, ...]

    def prepare(self, setup: AgentSetup, workspace: PurePosixPath, home: PurePosixPath) -> Launch:
        """The launch for `setup`, with the workspace at `workspace` and a private, writable home
        (config, state and user-level skill folders all live under it, so nothing of the user's own
        setup is read). No skill is discoverable from a parent folder of the workspace."""
        ...

    def parse(self, stdout: str, setup: AgentSetup) -> Transcript:
        """The transcript from the CLI's machine-readable event stream (all of stdout)."""
        ...

    # Optional, read through the functions at the end of this module (a driver without them keeps the
    # defaults): `tool_names` (its tool names in expect.tools' shared vocabulary), `mcp_tool(name,
    # servers)` (an MCP call's server and tool), `takes_mcp` and `resumes` (True where the driver
    # hands its CLI MCP servers / sends follow-ups in the same session), `needs_key` (False for a
    # driver that calls no model: skill-be's container then needs no key for it) and
    # `version_command` (the shell line that prints its version in the container, where
    # `<bin> --version` alone does not start it: drivers/__init__.py).


# --- what a driver may add: each an attribute or method with a default here ------------------------
# A driver that sets none of these still works: its tools map by DEFAULT_TOOL_NAMES, and a scenario with
# `mcp` or `followUps` is refused for it before any call.

# expect.tools' shared vocabulary: a CLI's own tool name -> shell, read, write, edit or skill. A driver
# whose CLI names its tools otherwise sets `tool_names` (its own mapping, merged over this one).
DEFAULT_TOOL_NAMES: Mapping[str, str] = {
    "bash": "shell", "Bash": "shell", "shell": "shell", "read": "read", "Read": "read", "write": "write",
    "Write": "write", "edit": "edit", "Edit": "edit", "MultiEdit": "edit", "skill": "skill", "Skill": "skill",
}  # fmt: skip


def tool_names(driver: object) -> Mapping[str, str]:
    """The driver's vocabulary: its `tool_names` over the default one."""
    own = getattr(driver, "tool_names", None)
    return {**DEFAULT_TOOL_NAMES, **own} if isinstance(own, Mapping) else DEFAULT_TOOL_NAMES


def default_mcp_tool(name: str, servers: Sequence[str]) -> tuple[str, str] | None:
    """(server, tool) of an MCP tool call, read the two ways CLIs name them: `mcp__<server>__<tool>`
    (Claude Code) and `<server>_<tool>` (opencode), for a declared server."""
    if name.startswith("mcp__"):
        server, sep, tool = name[5:].partition("__")
        if sep and server in servers:
            return server, tool
    for server in sorted(servers, key=len, reverse=True):
        if name.startswith(server + "_") and len(name) > len(server) + 1:
            return server, name[len(server) + 1 :]
    return None


def shared_tool(driver: object, name: str, servers: Sequence[str] = ()) -> str:
    """A tool call's name in the shared vocabulary: `mcp:<server>/<tool>` for a declared MCP server's
    tool (the driver's `mcp_tool(name, servers)` where it has one), the shared name where the driver's
    vocabulary has one, else the CLI's own name."""
    reader = getattr(driver, "mcp_tool", None)
    found = reader(name, servers) if callable(reader) else default_mcp_tool(name, servers)
    if found is not None:
        return f"mcp:{found[0]}/{found[1]}"
    return tool_names(driver).get(name, name)


def takes_mcp(driver: object) -> bool:
    """Whether the driver hands MCP servers to its CLI (`takes_mcp = True`); default: it does not."""
    return getattr(driver, "takes_mcp", False) is True


def resumes(driver: object) -> bool:
    """Whether the driver can send follow-ups in the same session (`resumes = True`); default: no."""
    return getattr(driver, "resumes", False) is True


def needs_key(driver: object) -> bool:
    """Whether the driver's CLI calls a model, so skill-be's container must get it a key (`needs_key =
    False` for one that calls none, the fake agent); default: it does."""
    return getattr(driver, "needs_key", True) is not False
