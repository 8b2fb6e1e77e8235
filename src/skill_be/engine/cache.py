"""The response cache, the engine's side: the key of everything that decided a call, and the hook
that asks a store before each generation and grading. The store (files under `.skill-be/cache/`)
is `results/response_cache.py`, and an adapter's identity (which reads the files its entry names) is
`project/identity.py`: the engine touches no file."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Protocol

from skill_be.adapters.base import Answer
from skill_be.engine.calls import Call, CallHook, CallTag, MakeCall, Model
from skill_be.engine.prompts import PREVIOUS, WITH_SKILL
from skill_be.project.identity import digest

__all__ = ["FORMAT", "CachedCalls", "CallHook", "MakeCall", "Store", "generation_key", "grading_key", "trigger_key"]

FORMAT = 1  # bump to start a fresh cache when the entry format or the key changes


class Store(Protocol):
    """Where answers are kept: `results.response_cache.ResponseCache`."""

    def get(self, key: str, skill: str) -> Answer | None: ...
    def put(self, key: str, answer: Answer) -> None: ...
    def count_made(self, skill: str) -> None: ...


def generation_key(identity: str, prompt: str, arm: str, rep: int, attached: Sequence[str] = ()) -> str:
    """A generation: the model, the exact prompt, the arm and the rep (reps stay independent samples),
    and the digest of each file attached to the prompt (none: the key of a plain prompt)."""
    key: dict[str, object] = {"v": FORMAT, "kind": "generation", "adapter": identity, "prompt": prompt, "arm": arm}
    key["rep"] = rep
    if attached:
        key["attachments"] = list(attached)
    return digest(key)


def grading_key(identity: str, prompt: str, output: tuple[str, str, str, str, int], k: int, attempt: int) -> str:
    """A grading: the grader, its prompt (rules, criteria and the answer), the output it grades (skill,
    scenario, model label, arm, rep: each output's gradings are its own samples, even where two answers
    read the same), the grading index k and the attempt (a retried reply is a call of its own)."""
    return digest(
        {
            "v": FORMAT,
            "kind": "grading",
            "adapter": identity,
            "prompt": prompt,
            "output": list(output),
            "k": k,
            "attempt": attempt,
        }
    )


def trigger_key(identity: str, prompt: str, rep: int) -> str:
    """A trigger call (engine/triggers.py): the model, the query with every offered skill's name and
    description (the prompt block), and the rep."""
    return digest({"v": FORMAT, "kind": "trigger", "adapter": identity, "prompt": prompt, "rep": rep})


# --- the engine's side: every generation and grading call looks here first ----------------------


class CachedCalls:
    """Wraps the engine's model calls: a hit returns the stored answer without taking a slot or calling
    the model; a successful miss is stored. Only generations and gradings are cached: triage's calls
    must be fresh samples."""

    KINDS = ("generate", "grade", "trigger")

    def __init__(self, cache: Store, identities: Mapping[int, str]) -> None:
        self.cache = cache
        self.identities = identities  # id(model.adapter) -> project.identity.adapter_identity of its entry

    def key(self, adapter: object, prompt: str, tag: CallTag, skill: str) -> str | None:
        identity = self.identities.get(id(getattr(adapter, "inner", adapter)))  # a trigger call wraps its model's
        if identity is None or tag.kind not in self.KINDS:
            return None
        if tag.kind == "trigger":
            return trigger_key(identity, prompt, tag.rep)
        # The previous arm's calls are the with-skill calls of a run at REF (the same prompt, skill
        # text and rep): a cache kept from the base branch answers them for free.
        arm = WITH_SKILL if tag.arm == PREVIOUS else tag.arm
        if tag.kind == "generate":
            return generation_key(identity, prompt, arm, tag.rep, [a.digest for a in tag.attachments])
        return grading_key(identity, prompt, (skill, tag.scenario, tag.model, arm, tag.rep), tag.k, tag.attempt)

    async def call(self, make: MakeCall, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
        skill = tag.skill
        key = self.key(model.adapter, prompt, tag, skill)
        if key is None:
            return await make(model, prompt, priority, tag)
        started = time.monotonic()
        answer = self.cache.get(key, skill)
        if answer is not None:
            return Call(answer, None, time.monotonic() - started)
        result = await make(model, prompt, priority, tag)
        self.cache.count_made(skill)
        if result.answer is not None:
            self.cache.put(key, result.answer)
        return result
