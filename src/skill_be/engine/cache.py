"""The response cache, the engine's side: the key of everything that decided a call, and the hook
that asks a store before each generation and grading. The store (files under `.skill-be/cache/`)
is `results/response_cache.py`; the engine touches no file."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from skill_be.adapters.base import Answer
from skill_be.engine.runner import Call, CallTag, Model

FORMAT = 1  # bump to start a fresh cache when the entry format or the key changes
MODULE_SUFFIXES = (".py", ".js", ".mjs", ".cjs")
_MAX_HASHED_FILE = 8 << 20  # a file named on a command line is hashed only below this size


MakeCall = Callable[[Model, str, tuple[int, ...], CallTag], Awaitable[Call]]


class CallHook(Protocol):
    """What Engine.call asks before it calls a model: answer the call, or `make` it."""

    async def call(
        self, make: MakeCall, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag
    ) -> Call: ...


class Store(Protocol):
    """Where answers are kept: `results.response_cache.ResponseCache`."""

    def get(self, key: str, skill: str) -> Answer | None: ...
    def put(self, key: str, answer: Answer) -> None: ...
    def count_made(self, skill: str) -> None: ...


class EntryLike(Protocol):
    """The parts of a config's adapter entry that decide what the adapter answers."""

    @property
    def adapter(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def settings(self) -> Mapping[str, object]: ...


def _digest(doc: object) -> str:
    text = json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _file_digest(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_HASHED_FILE:
            return None
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def adapter_identity(entry: EntryLike, root: Path) -> str:
    """A digest of the adapter and every setting of its entry (id, provider, thinking, baseUrl, api, run,
    ...), the content of an adapter module file, and the content of each file inside the config's folder
    that a `run` command line names (a scripted model: editing the script is a new model)."""
    files: dict[str, str | None] = {}
    if entry.adapter.endswith(MODULE_SUFFIXES):
        files[entry.adapter] = _file_digest(root / entry.adapter)
    run = entry.settings.get("run")
    if isinstance(run, str):
        try:
            words = shlex.split(run, posix=True)
        except ValueError:
            words = []
        base = root.resolve()
        for word in words:
            p = (root / word).resolve() if not os.path.isabs(word) else Path(word)
            if p.is_relative_to(base) and p != base:
                digest = _file_digest(p)
                if digest is not None:
                    files[word] = digest
    return _digest({"adapter": entry.adapter, "id": entry.id, "settings": dict(entry.settings), "files": files})


def generation_key(identity: str, prompt: str, arm: str, rep: int) -> str:
    """A generation: the model, the exact prompt, the arm and the rep (reps stay independent samples)."""
    return _digest({"v": FORMAT, "kind": "generation", "adapter": identity, "prompt": prompt, "arm": arm, "rep": rep})


def grading_key(identity: str, prompt: str, output: tuple[str, str, str, str, int], k: int, attempt: int) -> str:
    """A grading: the grader, its prompt (rules, criteria and the answer), the output it grades (skill,
    scenario, model label, arm, rep: each output's gradings are its own samples, even where two answers
    read the same), the grading index k and the attempt (a retried reply is a call of its own)."""
    return _digest(
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
    return _digest({"v": FORMAT, "kind": "trigger", "adapter": identity, "prompt": prompt, "rep": rep})


# --- the engine's side: every generation and grading call looks here first ----------------------


class CachedCalls:
    """Wraps the engine's model calls: a hit returns the stored answer without taking a slot or calling
    the model; a successful miss is stored. Only generations and gradings are cached: triage's calls
    must be fresh samples."""

    KINDS = ("generate", "grade", "trigger")

    def __init__(self, cache: Store, identities: Mapping[int, str], skills: Sequence[str]) -> None:
        self.cache = cache
        self.identities = identities  # id(model.adapter) -> adapter_identity of its entry
        self.skills = skills  # the engine's skill index -> the skill's name

    def key(self, adapter: object, prompt: str, tag: CallTag, skill: str) -> str | None:
        identity = self.identities.get(id(getattr(adapter, "inner", adapter)))  # a trigger call wraps its model's
        if identity is None or tag.kind not in self.KINDS:
            return None
        if tag.kind == "trigger":
            return trigger_key(identity, prompt, tag.rep)
        if tag.kind == "generate":
            return generation_key(identity, prompt, tag.arm, tag.rep)
        return grading_key(identity, prompt, (skill, tag.scenario, tag.model, tag.arm, tag.rep), tag.k, tag.attempt)

    async def call(self, make: MakeCall, model: Model, prompt: str, priority: tuple[int, ...], tag: CallTag) -> Call:
        skill = self.skills[priority[0]] if priority and priority[0] < len(self.skills) else ""
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
