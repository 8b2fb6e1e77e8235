"""Adapters by name: built-ins imported on first use, or a Python file of the user's own."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from skill_be.adapters.base import Adapter, AdapterEnv
from skill_be.project.config import AdapterEntry
from skill_be.project.where import did_you_mean

__all__ = ["BUILTINS", "AdapterEnv", "AdapterRegistry", "check_unique", "labels"]  # AdapterEnv lives in base

# name -> module with `create(entry: AdapterEntry, env: AdapterEnv) -> Adapter`. The modules import
# base.py, never this registry: the registry names them by string and imports them on first use.
BUILTINS: Mapping[str, str] = {
    "command": "skill_be.adapters.command",
    "claude-cli": "skill_be.adapters.claude_cli",
    "pi-cli": "skill_be.adapters.pi_cli",
    "opencode-cli": "skill_be.adapters.opencode_cli",
    "codex-cli": "skill_be.adapters.codex_cli",
    "copilot-cli": "skill_be.adapters.copilot_cli",
    "gemini-cli": "skill_be.adapters.gemini_cli",
    "anthropic": "skill_be.adapters.anthropic_api",
    "openai": "skill_be.adapters.openai_api",
    "gemini": "skill_be.adapters.gemini_api",
    "fake": "skill_be.adapters.fake",  # canned answers and gradings, no model (run --fake)
}


JS_SUFFIXES = (".js", ".mjs", ".cjs")


class AdapterRegistry:
    def __init__(self, modules: Mapping[str, str] = BUILTINS) -> None:
        self._modules = dict(modules)

    @property
    def names(self) -> list[str]:
        return sorted(self._modules)

    def create(self, entry: AdapterEntry, env: AdapterEnv) -> Adapter:
        """Validate the entry's settings and build its adapter; a mistake is a ConfigError."""
        name = entry.adapter
        if name in self._modules:
            module = importlib.import_module(self._modules[name])
            adapter: Adapter = module.create(entry, env)
            return adapter
        if name.endswith(".py"):
            from skill_be.adapters.python_module import create as create_python

            return create_python(entry, env)
        if name.endswith(JS_SUFFIXES):
            from skill_be.adapters.js_module import create as create_js

            return create_js(entry, env)
        if "/" in name or name.startswith("."):
            raise entry.where.key("adapter").error(
                f'"{name}" is not an adapter module skill-be can load; name a Python file (.py) or a JavaScript '
                "module (.js, .mjs, .cjs)"
            )
        raise entry.where.key("adapter").error(
            f'unknown adapter "{name}"{did_you_mean(name, self._modules)}; use one of {", ".join(self.names)} '
            "or a path to your own adapter module (.py, or .js/.mjs/.cjs as in the Node tool)"
        )


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
