"""Fixture projects for the checks: copies of tests/fixtures/checks/*, and small projects built here."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from skill_be.checks.typescript import ensure_ours, find_node

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "checks"

CONFIG_HEAD = """skills: ./skills
evals: ./evals
model:
  adapter: command
  id: scripted
  run: "true"
grader:
  adapter: command
  id: scripted
  run: "true"
"""


def eval_json(skill: str, prompt: str = "Do the task.", output: Mapping[str, str] | None = None) -> str:
    scenario: dict[str, object] = {"id": "one", "prompt": prompt, "criteria": ["Does it"]}
    if output is not None:
        scenario["output"] = dict(output)
    return json.dumps({"skill": skill, "scenarios": [scenario]}, indent=2)


@pytest.fixture
def copy_fixture(tmp_path: Path) -> Callable[[str], Path]:
    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(FIXTURES / name, target)
        return target

    return copy


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[..., Path]:
    """A project with `checks` YAML, skills {name: SKILL.md text} and extra files {relative path: text}."""

    def make(checks: str = "", skills: Mapping[str, str] | None = None, files: Mapping[str, str] | None = None) -> Path:
        root = tmp_path / "proj"
        (root / "evals").mkdir(parents=True, exist_ok=True)
        for name, text in (skills or {"demo": "# Demo\n"}).items():
            (root / "skills" / name).mkdir(parents=True, exist_ok=True)
            (root / "skills" / name / "SKILL.md").write_text(text)
            (root / "evals" / f"{name}.json").write_text(eval_json(name))
        for rel, text in (files or {}).items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        (root / "skill-be.yaml").write_text(CONFIG_HEAD + checks)
        return root / "skill-be.yaml"

    return make


@pytest.fixture(scope="session")
def our_typescript() -> Path:
    """skill-be's own TypeScript module folder (pre-installed by .ci/steps/20-typescript.sh)."""
    return ensure_ours(find_node(), lambda _: None).module_dir
