"""Your own adapter: a Python file exporting `async def complete(prompt, *, settings, timeout_seconds, cwd)`."""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from skill_be.adapters.base import AdapterEnv, AdapterStartError, Answer, CallContext, CallError
from skill_be.paths import shown
from skill_be.project.config import AdapterEntry

Complete = Callable[..., Awaitable[Any]]


class ModuleAdapter:
    def __init__(self, entry: AdapterEntry, env: AdapterEnv) -> None:
        self.entry = entry
        self.env = env
        self.label = env.label or entry.id
        self.path = (env.root / entry.adapter).resolve()
        self._fn: Complete | None = None

    def _load(self) -> Complete:
        if self._fn is not None:
            return self._fn
        where = f"{self.entry.where.file}: {self.entry.where.path}.adapter"
        if not self.path.is_file():
            raise AdapterStartError(f"{where}: adapter module {shown(self.path)} does not exist; fix the path")
        name = "skill_be_user_adapter_" + hashlib.sha256(str(self.path).encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(name, self.path)
        if spec is None or spec.loader is None:
            raise AdapterStartError(f"{where}: {shown(self.path)} is not a Python module")
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as e:  # the user's module failing to import is their mistake to fix
            raise AdapterStartError(f"{where}: {shown(self.path)} fails to load ({type(e).__name__}: {e})") from None
        fn: Complete | None = getattr(module, "complete", None)
        if fn is None or not inspect.iscoroutinefunction(fn):
            raise AdapterStartError(
                f"{where}: {shown(self.path)} must define "
                "`async def complete(prompt, *, settings, timeout_seconds, cwd) -> str`"
            )
        self._fn = fn
        return self._fn

    async def preflight(self) -> None:
        self._load()

    async def complete(self, prompt: str, ctx: CallContext) -> Answer:
        fn = self._load()
        text = await fn(prompt, settings=dict(self.entry.settings), timeout_seconds=ctx.timeout_seconds, cwd=ctx.cwd)
        if not isinstance(text, str):
            raise CallError(f"the adapter returned {type(text).__name__}, not a string")
        return Answer(text=text.strip())

    def describe(self) -> Mapping[str, object]:
        return {"adapter": self.entry.adapter, "id": self.entry.id}


def create(entry: AdapterEntry, env: AdapterEnv) -> ModuleAdapter:
    return ModuleAdapter(entry, env)
