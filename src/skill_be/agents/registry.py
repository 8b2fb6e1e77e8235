"""The agent drivers by name, each module imported only when its name is used."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from skill_be.agents.base import AgentDriver

# Driver name -> module; each module has `create(**options) -> AgentDriver` (options: bin, path).
DRIVERS: Mapping[str, str] = {
    "claude": "skill_be.agents.claude",
    "pi": "skill_be.agents.pi",
    "opencode": "skill_be.agents.opencode",
}
# The config's adapter names that can act as agents -> the driver that does it.
ADAPTERS: Mapping[str, str] = {"claude-cli": "claude", "pi-cli": "pi", "opencode-cli": "opencode"}


def driver(name: str, **options: str) -> AgentDriver:
    """The driver called `name` (a driver name or an adapter name); KeyError when there is none."""
    key = ADAPTERS.get(name, name)
    if key not in DRIVERS:
        raise KeyError(name)
    module = importlib.import_module(DRIVERS[key])
    made: AgentDriver = module.create(**options)
    return made
