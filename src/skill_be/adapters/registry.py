"""Adapters by name: built-ins imported on first use, or a Python file of the user's own."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from skill_be.adapters.base import Adapter, AdapterEnv
from skill_be.project.adapter_kinds import ADAPTERS, JS_SUFFIXES, PYTHON_SUFFIX, unknown
from skill_be.project.config import AdapterEntry

__all__ = ["BUILTINS", "AdapterEnv", "AdapterRegistry", "check_unique", "labels"]  # AdapterEnv lives in base

# name -> module with `create(entry: AdapterEntry, env: AdapterEnv) -> Adapter`, from the one table of
# the built-in adapters (project/adapter_kinds.py, which also names each one's settings model). The
# modules import base.py, never this registry: the registry imports them by name on first use.
BUILTINS: dict[str, str] = {name: f"skill_be.adapters.{kind.module}" for name, kind in ADAPTERS.items()}


class AdapterRegistry:
    def __init__(self, modules: Mapping[str, str] = BUILTINS) -> None:
        self._modules = dict(modules)

    @property
    def names(self) -> list[str]:
        return sorted(self._modules)

    def create(self, entry: AdapterEntry, env: AdapterEnv) -> Adapter:
        """Build the entry's adapter (its settings checked by its model: project/adapter_kinds.py); a
        mistake is a ConfigError."""
        name = entry.adapter
        if name in self._modules:
            module = importlib.import_module(self._modules[name])
            adapter: Adapter = module.create(entry, env)
            return adapter
        if name.endswith(PYTHON_SUFFIX):
            from skill_be.adapters.python_module import create as create_python

            return create_python(entry, env)
        if name.endswith(JS_SUFFIXES):
            from skill_be.adapters.js_module import create as create_js

            return create_js(entry, env)
        raise entry.where.key("adapter").error(unknown(name, self._modules))


def labels(entries: list[AdapterEntry]) -> list[str]:
    """A model is labelled by its id, or adapter:id when two entries share an id."""
    ids = [e.id for e in entries]
    return [f"{e.adapter}:{e.id}" if ids.count(e.id) > 1 else e.id for e in entries]


def check_unique(entries: list[AdapterEntry]) -> None:
    seen: dict[str, AdapterEntry] = {}
    for e, label in zip(entries, labels(entries), strict=True):
        if label in seen:
            raise e.where.error(f'the same model as {seen[label].where.path} ("{label}"); list each model once')
        seen[label] = e
