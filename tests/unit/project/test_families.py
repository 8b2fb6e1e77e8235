"""Provider families of configured models (the same-family warning) and `grader` as a list."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.project.projectdir import ProjectDir, judge

from skill_be.errors import ConfigError
from skill_be.project.config import AdapterEntry, load_config
from skill_be.project.families import family, same_family
from skill_be.project.where import Where


def entry(adapter: str, model: str) -> AdapterEntry:
    return AdapterEntry(adapter, model, {}, Where("skill-be.yaml"))


def test_families_come_from_the_id_then_the_adapter() -> None:
    assert family(entry("anthropic", "x")) == "Anthropic"
    assert family(entry("openai", "gpt-5")) == "OpenAI" and family(entry("openai", "o3-mini")) == "OpenAI"
    assert family(entry("opencode-cli", "google/gemini-2.5-pro")) == "Google"
    assert family(entry("openai", "local-model")) is None and family(entry("command", "m")) is None
    judges = (entry("anthropic", "claude-opus-4"), entry("openai", "gpt-5"))
    models = (entry("claude-cli", "claude-sonnet-4-5"), entry("openai", "qwen3-coder"))
    assert same_family(judges, models) == [("claude-opus-4", "claude-sonnet-4-5", "Anthropic")]


def test_grader_as_a_list(tmp_path: Path) -> None:
    p = ProjectDir(tmp_path / "p")
    text = p.config.read_text().split("grader:")[0]
    p.config.write_text(
        text + "grader:\n  - {adapter: command, id: g1, run: ./a.sh, template: evidence}\n"
        "  - {adapter: command, id: g2, run: ./b.sh}\n"
    )
    p.skill("money", [judge()])
    config = load_config(p.config)
    assert [g.id for g in config.graders] == ["g1", "g2"] and config.grader.id == "g1"
    assert config.grader_evidence == "reported" and "template" not in config.grader.settings
    p.config.write_text(
        text + "grader:\n  - {adapter: command, id: g1, run: ./a.sh}\n"
        "  - {adapter: command, id: g2, run: ./b.sh, evidence: required}\n"
    )
    with pytest.raises(ConfigError, match=r"grader\[1\]\.evidence: goes on the first grader entry"):
        load_config(p.config)
