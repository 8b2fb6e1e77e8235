"""Version-2 fingerprints (issue 20): what decides a result changes them, nothing else does, and
each part is named so verify can say what changed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.unit.project.projectdir import ProjectDir, coded, judge

from skill_be.project.fingerprint import changed_inputs, combine
from skill_be.project.loader import load_project


def state(project: ProjectDir, skill: str = "money") -> tuple[str, dict[str, str], str]:
    p = load_project(project.config)
    s = next(x for x in p.skills if x.name == skill)
    return p.fingerprint(s), p.inputs(s), p.legacy_fingerprint(s)


@pytest.fixture
def project(tmp_path: Path) -> ProjectDir:
    p = ProjectDir(tmp_path / "p")
    p.skill("money", [judge()])
    return p


def test_it_is_v2_over_its_inputs(project: ProjectDir) -> None:
    fp, inputs, legacy = state(project)
    assert re.fullmatch(r"v2:[0-9a-f]{64}", fp) and fp == combine(inputs)
    assert re.fullmatch(r"[0-9a-f]{64}", legacy)
    assert {"SKILL.md", "eval", "config:model", "config:grader", "config:gradings"} <= set(inputs)


@pytest.mark.parametrize(
    "edit",
    [
        "# a comment\n",
        "concurrency: 9\n",
        "cache: true\n",
        "results: ./elsewhere\n",
        "reps: 3\n",  # the default written out
        "gate:\n  rule: strict\n",  # the default written out
        "pricing:\n  m:\n    input: 1\n    output: 2\n",
    ],
)
def test_what_cannot_change_a_result_leaves_it(project: ProjectDir, edit: str) -> None:
    fp, _, legacy = state(project)
    project.add_config(edit)
    after, _, legacy_after = state(project)
    assert after == fp
    assert legacy_after != legacy  # version 1 hashed the file whole


@pytest.mark.parametrize(
    ("edit", "label"),
    [
        ("gate:\n  rule: evidence\n", "config:gate.rule"),
        ("gate:\n  blockOnErrors: false\n", "config:gate.blockOnErrors"),
        ("gradings: 5\n", "config:gradings"),
        ("timeoutSeconds: 30\n", "config:timeoutSeconds"),
        ("graderPrompt: Judge it.\n", "config:graderPrompt"),
        ("withSkillTemplate: 'Docs {{skill}} task {{task}}'\n", "config:withSkillTemplate"),
    ],
)
def test_a_deciding_key_changes_it_and_is_named(project: ProjectDir, edit: str, label: str) -> None:
    fp, inputs, _ = state(project)
    project.add_config(edit)
    after, inputs_after, _ = state(project)
    assert after != fp
    assert changed_inputs(inputs, inputs_after) == [label]


def test_the_model_entry_is_one_part(project: ProjectDir) -> None:
    _, inputs, _ = state(project)
    project.config.write_text(project.config.read_text().replace("id: m\n", "id: m2\n"))
    _, after, _ = state(project)
    assert changed_inputs(inputs, after) == ["config:model"]


def test_each_file_is_named(project: ProjectDir) -> None:
    _, inputs, _ = state(project)
    project.write("skills/money/SKILL.md", "---\nname: money\n---\n# changed\n")
    _, after, _ = state(project)
    assert changed_inputs(inputs, after) == ["SKILL.md"]


def test_code_tests_settings_count_only_for_a_skill_with_code_tests(tmp_path: Path) -> None:
    project = ProjectDir(tmp_path / "p")
    project.add_config("tests: ./skill-tests\n")
    project.skill("signup", [coded("t")])
    project.skill("money", [judge()])
    project.write("skill-tests/signup/t.test.ts", "test('x', () => {})\n")
    signup, money = state(project, "signup")[1], state(project, "money")[1]
    project.add_config("codeTests:\n  sandbox: process\n")
    assert changed_inputs(signup, state(project, "signup")[1]) == ["config:codeTests.sandbox"]
    assert changed_inputs(money, state(project, "money")[1]) == []
    assert "tests/t.test.ts" in signup
