"""The built-in adapters by name: the one table of their names, with the module under `adapters/`
that builds each and the model of its settings (`project/adapter_settings.py`).

`adapters/registry.py` imports its modules from here, and the config's model validates an entry's
settings with the model its `adapter` names. Standard library only: the registry and `verify` pay
nothing for the settings models until a file needs its model (project/validation.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple


class Kind(NamedTuple):
    module: str  # under skill_be/adapters/, with `create(entry, env)`
    settings: str  # its settings model, a class of project/adapter_settings.py


ADAPTERS: Mapping[str, Kind] = {
    "command": Kind("command", "CommandSettings"),
    "claude-cli": Kind("claude_cli", "CliSettings"),
    "pi-cli": Kind("pi_cli", "PiCliSettings"),
    "opencode-cli": Kind("opencode_cli", "OpencodeCliSettings"),
    "codex-cli": Kind("codex_cli", "CliSettings"),
    "copilot-cli": Kind("copilot_cli", "CopilotCliSettings"),
    "gemini-cli": Kind("gemini_cli", "CliSettings"),
    "anthropic": Kind("anthropic_api", "AnthropicSettings"),
    "openai": Kind("openai_api", "OpenaiSettings"),
    "gemini": Kind("gemini_api", "HttpSettings"),
    "fake": Kind("fake", "FakeSettings"),  # canned answers and gradings, no model (run --fake)
}

PYTHON_SUFFIX = ".py"
JS_SUFFIXES = (".js", ".mjs", ".cjs")


def is_module(name: str) -> bool:
    """An adapter of the user's own: a Python file or a JavaScript module."""
    return name.endswith((PYTHON_SUFFIX, *JS_SUFFIXES))


def entry_title(name: str) -> str:
    """The name of the model of an entry of adapter `name`, as the published schema's `$defs` has it."""
    return "".join(part.capitalize() for part in name.split("-")) + "Entry"


def unknown(name: str, names: Mapping[str, object] = ADAPTERS) -> str:
    """Why `adapter: <name>` names no adapter, and what to write instead."""
    from skill_be.project.where import did_you_mean

    if "/" in name or name.startswith("."):
        return (
            f'"{name}" is not an adapter module skill-be can load; name a Python file (.py) or a JavaScript '
            "module (.js, .mjs, .cjs)"
        )
    return (
        f'unknown adapter "{name}"{did_you_mean(name, names)}; use one of {", ".join(sorted(names))} '
        "or a path to your own adapter module (.py, or .js/.mjs/.cjs as in the Node tool)"
    )
