"""The CLI version an agent run is cached under is the one that runs: in skill-be's container, the
image's CLI (asked there, each driver's version command in one checks run), whatever this machine
has on its PATH, or when it has none at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_be.adapters.credentials import Redactor
from skill_be.adapters.registry import AdapterEnv, AdapterRegistry
from skill_be.agents.boxes import BoxSettings, open_box
from skill_be.engine.runner import Model
from skill_be.project.config import AdapterEntry
from skill_be.project.where import Where
from skill_be.wiring.agent_parts import cli_versions

REPO = Path(__file__).resolve().parents[3]
EXPECTED = {  # the pinned version as each CLI prints it (.ci/agent-clis.txt)
    "claude-cli": "2.1.197 (Claude Code)",
    "pi-cli": "0.73.1",
    "opencode-cli": "1.18.33",
    "codex-cli": "codex-cli 0.169.0",
    "copilot-cli": "GitHub Copilot CLI 1.0.102.",
    "gemini-cli": "0.61.0",
}
SETTINGS = {name: {"provider": "openai"} for name in ("pi-cli", "opencode-cli", "copilot-cli")}


def test_each_cli_in_the_container_is_asked_its_version_there_with_none_on_this_machine(
    client: Any, tmp_path: Path
) -> None:
    env = AdapterEnv(root=tmp_path, environ={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, redactor=Redactor())
    registry = AdapterRegistry()
    models = []
    for name in EXPECTED:
        settings = {"adapter": name, "id": "m", **SETTINGS.get(name, {})}
        entry = AdapterEntry(name, "m", settings, Where("skill-be.yaml", "model"))
        models.append(Model(name, registry.create(entry, env)))
    box = open_box("docker", BoxSettings(), print)
    try:
        versions = cli_versions(models, {"docker": box})
    finally:
        box.close()
    assert {label: v["docker"] for label, v in versions.items()} == EXPECTED
    # The control: this machine's PATH has none of them, so asking here knows nothing.
    here = cli_versions(models[:1], {"process": open_box("process", BoxSettings(), lambda _: None)})
    assert here == {"claude-cli": {"process": "unknown"}}
