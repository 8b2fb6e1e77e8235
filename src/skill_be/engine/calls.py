"""A model call as the engine sees it: the model, what the call is for, its outcome, and the hook
that may answer a call before the model is asked (the response cache, regrade's stored answers).
runner.py and cache.py both build on this module, so neither imports the other."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from skill_be.adapters.base import Adapter, AdapterStartError, Answer, CallContext
from skill_be.project.attachments import Attachment

GRADE, GENERATE = 0, 1  # a call's kind in its priority: gradings before generations (Engine.priority)


@dataclass(frozen=True)
class Model:
    label: str
    adapter: Adapter


class CallTag(NamedTuple):
    """What a model call is for. Everything that decides the answer besides the prompt and the model
    (a rep is an independent sample, so is each grading), for whoever wants to tell calls apart."""

    kind: str  # generate | grade | classify
    scenario: str = ""
    rep: int = 0
    arm: str = ""
    k: int = 0  # the grading's index, 1-based
    attempt: int = 1  # a retried grading is another call: the cache keeps both apart
    model: str = ""  # a grading's: the label of the model whose answer it grades
    skill: str = ""  # the skill the call belongs to
    attachments: tuple[Attachment, ...] = ()  # a generation's files besides the prompt (CallContext)
    # Where the prompt's parts that repeat across calls end (CallContext.stable): for a provider's
    # prompt cache only, never part of what decides the answer (engine/cache.py leaves it out).
    stable: tuple[int, ...] = ()


CACHED_KINDS = ("generate", "grade")  # the calls that get a prompt-cache key (CallContext.cache_key)


def prompt_cache_key(tag: CallTag) -> str:
    """A short hash of the skill, the arm and the role: calls that share a stable prefix share it."""
    if tag.kind not in CACHED_KINDS:
        return ""
    return hashlib.sha256(f"{tag.skill}\0{tag.arm}\0{tag.kind}".encode()).hexdigest()[:16]


class Call(NamedTuple):
    """One model call's outcome: the answer, or the reason there is none."""

    answer: Answer | None
    error: str | None
    seconds: float


MakeCall = Callable[[Model, str, tuple[int, ...], CallTag], Awaitable[Call]]


class CallHook(Protocol):
    """What Engine.call asks before it calls a model: answer the call, or `make` it."""

    async def call(
        self, make: MakeCall, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag
    ) -> Call: ...


class Live:
    """The hook of a plain run: every call is made."""

    async def call(self, make: MakeCall, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
        return await make(model, prompt, priority, tag)


LIVE = Live()


class NotCalled:
    """A model that is never called: regrade's and merge's record of an earlier run's models, whose
    answers come from that run's files."""

    def __init__(self, label: str, described: Mapping[str, object]) -> None:
        self.label = label
        self.described = dict(described)

    async def preflight(self) -> None:
        return None

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        raise AdapterStartError("this model is never called")  # pragma: no cover - a hook answers first

    def describe(self) -> Mapping[str, object]:
        return self.described


def stand_in(record: Mapping[str, object]) -> Model:
    """A model under test as summary.json recorded it (`label`, adapter, id, ...), never called."""
    label = str(record["label"])
    return Model(label, NotCalled(label, record))
