"""The agent CLIs skill-be can drive as agents: the one table of agent-capable adapters, each row the
module of its driver (imported only when its name is used), and what a model's adapter gives its
driver (the endpoint it calls, the CLI's executable).

A new agent CLI is one driver module here (`create(**options) -> AgentDriver`, options `bin` and
`path`), one line in `DRIVERS`, and its adapter in `adapters/` (one line in `adapters/registry.py`).
"""

from __future__ import annotations

import importlib
import shlex
from collections.abc import Mapping
from typing import Any

from skill_be.agents.drivers.base import AgentDriver, ModelEndpoint
from skill_be.agents.drivers.limit import limited

# The config's adapter name -> the module of the driver that runs that CLI as an agent.
DRIVERS: Mapping[str, str] = {
    "claude-cli": "skill_be.agents.drivers.claude",
    "pi-cli": "skill_be.agents.drivers.pi",
    "opencode-cli": "skill_be.agents.drivers.opencode",
    "codex-cli": "skill_be.agents.drivers.codex",
    "copilot-cli": "skill_be.agents.drivers.copilot",
    "gemini-cli": "skill_be.agents.drivers.gemini",
    "fake": "skill_be.agents.drivers.fake",  # a canned agent that does nothing (run --fake)
}


def module_of(name: str) -> str:
    """The driver module for an adapter name ("claude-cli") or a driver's own name ("claude");
    KeyError when no agent CLI has it."""
    if name in DRIVERS:
        return DRIVERS[name]
    for module in DRIVERS.values():
        if module.rpartition(".")[2] == name:
            return module
    raise KeyError(name)


def driver(name: str, **options: str) -> AgentDriver:
    """The driver called `name` (an adapter name or a driver name), under skill-be's turn limit when it
    declares `turn_limit = "relay"` (drivers/limit.py); KeyError when there is none."""
    module = importlib.import_module(module_of(name))
    made: AgentDriver = module.create(**options)
    return limited(made)


def version_command(made: AgentDriver) -> str:
    """The shell command that prints the driver's CLI version where it runs: its `version_command`
    where it declares one (a CLI that needs an environment to start), else `<bin> --version`."""
    own = getattr(made, "version_command", None)
    if isinstance(own, str):
        return own
    return f"{shlex.quote(str(getattr(made, 'bin', made.name)))} --version"


def endpoint(adapter: Any) -> ModelEndpoint:
    """The model an agent CLI adapter calls, as its driver needs it: the id, the wire format (the one
    its CLI speaks, or the one its settings choose: `api`, else `provider`), the base URL and the key
    from the adapter's own settings."""
    entry = adapter.entry
    settings = dict(entry.settings)
    speaks = driver(entry.adapter).providers
    api = str(settings.get("api") or "")
    if len(speaks) == 1:
        wire = speaks[0]
    elif api:
        wire = "anthropic" if "anthropic" in api else "openai"
    else:
        wire = "anthropic" if settings.get("provider") == "anthropic" else "openai"
    return ModelEndpoint(model=str(entry.id), provider=wire, base_url=adapter.base_url, api_key=adapter.key())
