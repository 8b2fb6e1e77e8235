"""grader.template (issue 20): `generic` rules for skills not about code; `code` (the reference's) stays
the default, with the same prompt as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.project.projectdir import ProjectDir, judge

from skill_be.engine.prompts import DEFAULT_GRADER_RULES, GENERIC_GRADER_RULES, grader_prompt
from skill_be.errors import ConfigError
from skill_be.project.config import load_config
from skill_be.project.loader import load_project
from skill_be.wiring.assembly import engine_settings


def with_template(tmp_path: Path, line: str) -> ProjectDir:
    p = ProjectDir(tmp_path / "p")
    p.config.write_text(p.config.read_text().replace("  run: ./grader.sh\n", f"  run: ./grader.sh\n{line}"))
    p.skill("money", [judge()])
    return p


def test_the_default_is_the_references_rules(tmp_path: Path) -> None:
    config = load_config(with_template(tmp_path, "").config)
    assert config.grader_template == "code"
    assert engine_settings(config).grader_rules is None  # grader_prompt fills in the built-in rules
    assert grader_prompt(None, ["c"], "a").startswith(DEFAULT_GRADER_RULES.split("\n")[0])


def test_generic_replaces_the_role_and_rules_and_is_not_an_adapter_setting(tmp_path: Path) -> None:
    config = load_config(with_template(tmp_path, "  template: generic\n").config)
    assert config.grader_template == "generic" and "template" not in config.grader.settings
    rules = engine_settings(config).grader_rules
    assert rules == GENERIC_GRADER_RULES and "code" not in rules.split("\n")[0]
    prompt = grader_prompt(rules, ["Names the cause"], "The disk filled up.")
    assert prompt.startswith("You are a strict evaluator.") and "VERDICTS:" in prompt


def test_a_grader_prompt_wins_over_the_template(tmp_path: Path) -> None:
    p = with_template(tmp_path, "  template: generic\n")
    p.add_config("graderPrompt: Mine.\n")
    assert engine_settings(load_config(p.config)).grader_rules == "Mine."


def test_an_unknown_template_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"grader\.template: must be code .*, generic .* or evidence .*, not 'prose'"):
        load_config(with_template(tmp_path, "  template: prose\n").config)


def test_it_is_part_of_the_fingerprint_only_when_not_the_default(tmp_path: Path) -> None:
    plain = with_template(tmp_path / "a", "")
    code = with_template(tmp_path / "b", "  template: code\n")
    generic = with_template(tmp_path / "c", "  template: generic\n")
    fp = [load_project(p.config).fingerprint(load_project(p.config).skills[0]) for p in (plain, code, generic)]
    assert fp[0] == fp[1] != fp[2]
