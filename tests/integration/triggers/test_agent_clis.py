"""Trigger evals on the real agent CLIs (claude 2.1.197, pi, opencode, codex 0.169.0, copilot,
gemini 0.61.0) through agent mode's drivers,
against the scripted agent model (tests/support/agent_model_server.py): the skill and a neighbour
are offered, a load is observed both ways (this skill, the neighbour), a load on turn 2 after a
file read counts, and an answer that names the skill without loading it does not.

Needs the agent-cli branch (src/skill_be/agents/claude.py, pi.py, opencode.py and the agent model
server): on the triggers branch alone this file fails on purpose, never skips. Needs the CLIs on
PATH (.ci/steps/30-agent-clis.sh, then .ci/env)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skill_be.adapters.base import CallContext, CallError
from skill_be.adapters.choice import Offered
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry
from skill_be.agents.boxes.process import ProcessBox
from skill_be.agents.triggers import agent_choosers
from skill_be.project.config import AdapterEntry
from skill_be.project.where import Where

SUPPORT = Path(__file__).resolve().parents[2] / "support"
sys.path.insert(0, str(SUPPORT))
import agent_model_server as ams  # noqa: E402  (agent-cli's scripted agent model)

OFFERED = [Offered("duration", "Use for lengths of time."), Offered("money", "Use for amounts of money.")]
FILES = {
    o.name: {"SKILL.md": f"---\nname: {o.name}\ndescription: {o.description}\n---\nBODY of {o.name}\n".encode()}
    for o in OFFERED
}
PROVIDER = {
    "claude-cli": "anthropic",
    "pi-cli": "openai",
    "opencode-cli": "openai",
    "codex-cli": "openai",
    "copilot-cli": "openai",
    "gemini-cli": "gemini",
}
# The adapters with no provider setting: each speaks one wire format.
ONE_WIRE = ("claude-cli", "codex-cli", "gemini-cli")
CASES = [  # (the skill the model loads, how), the choice expected
    (("duration", "after_read"), "duration"),  # looks around on turn 1, loads on turn 2
    (("money", "offered"), "money"),  # the neighbour instead
    (("duration", "mention"), None),  # names it in the answer, never loads it
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    s = ams.AgentServer(str(tmp_path_factory.mktemp("agent-model")), netns=False)
    yield s
    s.stop()


@pytest.mark.parametrize("cli", sorted(PROVIDER))
def test_the_loaded_skill_is_read_from_the_transcript(server: Any, cli: str, tmp_path: Path) -> None:
    name = cli.removesuffix("-cli")
    if shutil.which(name) is None:
        pytest.fail(f"{name} is not on PATH: run .ci/steps/30-agent-clis.sh and source .ci/env")
    provider = PROVIDER[cli]
    url = server.base_url + ("/v1" if provider == "openai" else "")
    settings = {"adapter": cli, "id": "agent-mock", "baseUrl": url, "apiKeyEnv": "TRIGGER_KEY"}
    if cli not in ONE_WIRE:  # claude, codex and gemini speak one API each; none takes a provider
        settings["provider"] = provider
    entry = AdapterEntry(cli, "agent-mock", settings, Where("skill-be.yaml", "model"))
    warnings: list[str] = []
    environ = {**os.environ, "TRIGGER_KEY": "sk-trigger-test"}
    adapter = AdapterRegistry().create(entry, AdapterEnv(tmp_path, environ, label="m"))
    choosers = agent_choosers([("m", adapter)], 3, FILES, ProcessBox(), warn=warnings.append)
    assert warnings == [] and list(choosers) == ["m"]
    ctx = CallContext(timeout_seconds=120, cwd=tmp_path)
    for (skill, load), expected in CASES:
        server.agent(skill=skill, load=load, read="notes.txt", final="DONE")
        choice = asyncio.run(choosers["m"].choose("The build took 1h 5m and the tests 45s; add them.", OFFERED, ctx))
        assert choice.name == expected, (skill, load, choice.reply)
    # a trigger call offers no write, edit or shell tool: no skill's script runs on this machine
    tools = {
        t.get("name") or (t.get("function") or {}).get("name")
        for call in server.model_calls()
        for tool in json.loads(call["body"] or "{}").get("tools") or ()
        for t in tool.get("functionDeclarations") or [tool]  # the Gemini API nests its declarations
    }
    if cli == "codex-cli":  # Codex's tools cannot be chosen: it looks around and loads a skill with its shell
        assert "exec_command" in tools and not tools & {"Write", "write", "Edit", "edit", "apply_patch"}, tools
        return
    assert None not in tools, tools
    acting = {"Bash", "bash", "Write", "write", "Edit", "edit", "run_shell_command", "write_file", "replace"}
    assert tools and not tools & acting, tools


@pytest.mark.parametrize("cli", sorted(PROVIDER))
def test_a_run_that_fails_before_it_loads_a_skill_is_an_error_never_a_no_skill(cli: str, tmp_path: Path) -> None:
    """The endpoint refuses every connection: each CLI's run fails on its first model call. That is an
    error of the call (counted as one, and shown), never "no skill loaded", which would be a measured
    miss of recall (or a clean pass of a should-not query) that nothing measured."""
    provider = PROVIDER[cli]
    dead = "http://127.0.0.1:9" + ("/v1" if provider == "openai" else "")
    settings = {"adapter": cli, "id": "agent-mock", "baseUrl": dead, "apiKeyEnv": "TRIGGER_KEY"}
    if cli not in ONE_WIRE:
        settings["provider"] = provider
    entry = AdapterEntry(cli, "agent-mock", settings, Where("skill-be.yaml", "model"))
    environ = {**os.environ, "TRIGGER_KEY": "sk-trigger-test"}
    adapter = AdapterRegistry().create(entry, AdapterEnv(tmp_path, environ, label="m"))
    chooser = agent_choosers([("m", adapter)], 3, FILES, ProcessBox())["m"]
    ctx = CallContext(timeout_seconds=120, cwd=tmp_path)
    with pytest.raises(CallError, match="before it loaded a skill"):
        asyncio.run(chooser.choose("The build took 1h 5m and the tests 45s; add them.", OFFERED, ctx))
