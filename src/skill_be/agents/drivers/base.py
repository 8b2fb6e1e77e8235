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


@dataclass(frozen=True)
class Launch:
    """What to start: argv (argv[0] is the CLI's name or path), the whole environment the CLI gets
    (nothing else of skill-be's leaks in), and the files to write before it starts, by absolute path
    (skill folders, settings, the CLI's config). `cwd` is the workspace."""

    argv: Sequence[str]
    env: Mapping[str, str]
    files: Mapping[PurePosixPath, bytes]
    cwd: PurePosixPath


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
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    error: str | None = None  # the CLI's own error (limit reached, API error), None when it finished


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
