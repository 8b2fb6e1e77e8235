"""The one interface every adapter implements, and the values it exchanges with the engine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from skill_be.adapters.credentials import Redactor
from skill_be.errors import SkillBeError
from skill_be.project.attachments import Attachment


@dataclass(frozen=True)
class Usage:
    """Tokens of one call, as the CLI or API reported them; None where it reports nothing."""

    input_tokens: int | None = None  # every input token, the cached ones included
    output_tokens: int | None = None
    # Of input_tokens, those written to the provider's prompt cache and those read from it: priced
    # apart (pricing's cacheWrite and cacheRead); 0 where nothing was cached or the API says nothing.
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        """Two calls' tokens together (a conversation's turns, a run's follow-ups); None stays None
        only where both say nothing."""

        def both(a: int | None, b: int | None) -> int | None:
            return None if a is None and b is None else (a or 0) + (b or 0)

        return Usage(
            both(self.input_tokens, other.input_tokens),
            both(self.output_tokens, other.output_tokens),
            self.cache_write_tokens + other.cache_write_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
        )


@dataclass(frozen=True)
class Answer:
    text: str
    usage: Usage | None = None
    # What the adapter wants recorded for this call, e.g. the isolation it applied.
    meta: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class CallContext:
    """What the engine hands every call: the per-call timeout and the config's directory, and the files
    the prompt comes with (a scenario's `attachments`: only adapters that take them get any, the run
    refuses the rest before the first call). For a provider's prompt cache: `stable`, where the parts
    of the prompt that repeat across calls end (character offsets, increasing: the skill's text of
    the with-skill arm, the grader's rules), and `cache_key`, the same for calls that share such a
    part (a short hash of skill, arm and role; "" for none). Neither changes what the prompt says."""

    timeout_seconds: float
    cwd: Path
    attachments: tuple[Attachment, ...] = ()
    stable: tuple[int, ...] = ()
    cache_key: str = ""


@dataclass(frozen=True)
class AdapterEnv:
    """What a factory may use: the config's directory, the environment, the redactor and the label."""

    root: Path
    environ: Mapping[str, str]
    redactor: Redactor = field(default_factory=Redactor)
    label: str = ""


class CallError(Exception):
    """A call that produced no usable answer: a non-zero exit, an error event, an HTTP error."""


class Unreachable(CallError):
    """A call whose endpoint never answered: the connection failed or was dropped, or no reply came in
    time. `endpoint` is where it was sent (a URL); the engine's breaker counts these (engine/breaker.py)."""

    def __init__(self, message: str, endpoint: str) -> None:
        super().__init__(message)
        self.endpoint = endpoint


class AdapterStartError(SkillBeError):
    """The adapter cannot start at all (binary missing, wrong `bin` or `run`): exit 2, no verdict recorded."""


class Adapter(Protocol):
    """A model behind one async call. Timeouts and concurrency belong to the engine: on cancellation
    an adapter must stop its work (kill its child process group, close its connection)."""

    label: str  # how reports name it: the id, or adapter:id when two entries share an id

    async def preflight(self) -> None:
        """Checked once before the first model call: the CLI starts, settings and credentials hold.
        Raise AdapterStartError or ConfigError."""
        ...

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        """The model's answer to `prompt`. Raise CallError (or any exception) for a failed call."""
        ...

    def describe(self) -> Mapping[str, object]:
        """What summary.json records about this adapter (name, id, isolation it applies)."""
        ...
