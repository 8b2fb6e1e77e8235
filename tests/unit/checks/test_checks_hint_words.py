"""The hint-word check: words, what drops them, exact warnings; and the ast API reader."""

from __future__ import annotations

import json
from pathlib import Path

from skill_be.checks.python_api import public_api
from skill_be.codetests.hints import hint_warnings, skill_words
from skill_be.project.loader import load_project

SKILL = """# Signup

Answer `409` with `{ errors }` when `isEmailTaken` says so.

```ts
export function signup(deps: { isEmailTaken: IsTaken; createUser: Create }) {
  const errors: string[] = []; // validate first
  return validateInput(errors, 'conflict');
}
```
"""

CONFIG = """skills: ./skills
evals: ./evals
tests: ./skill-tests
model: {adapter: command, id: m, run: "true"}
grader: {adapter: command, id: g, run: "true"}
checks:
  typecheck: false
"""


def _project(tmp_path: Path, prompt: str, description: str, extra: str = "") -> Path:
    (tmp_path / "skills" / "signup").mkdir(parents=True)
    (tmp_path / "skills" / "signup" / "SKILL.md").write_text(SKILL)
    (tmp_path / "evals").mkdir()
    scenario = {"id": "new-signup", "prompt": prompt, "criteria": ["Works"], "output": {"result": description}}
    (tmp_path / "evals" / "signup.json").write_text(json.dumps({"skill": "signup", "scenarios": [scenario]}))
    (tmp_path / "skill-tests" / "signup").mkdir(parents=True)
    (tmp_path / "skill-tests" / "signup" / "new-signup.test.ts").write_text("test('x', () => {});\n")
    (tmp_path / "skill-be.yaml").write_text(CONFIG + extra)
    return tmp_path / "skill-be.yaml"


def _warning(word: str) -> str:
    return (
        f'warning: skill "signup" / scenario "new-signup": output.result names "{word}", which the task prompt '
        "does not use. The baseline sees the output contract too, so this hints it."
    )


def test_words_are_identifiers_of_code_and_inline_code_without_keywords_comments_or_strings(tmp_path: Path) -> None:
    project = load_project(_project(tmp_path, "p", "d"))
    words = skill_words(project.skills[0])
    assert words == ["signup", "deps", "isEmailTaken", "IsTaken", "createUser", "Create", "errors", "validateInput"]


def test_a_hit_is_one_exact_warning(tmp_path: Path) -> None:
    config = _project(tmp_path, "Write a signup handler.", "A handler whose body is { errors } for a rejection.")
    assert hint_warnings(load_project(config)) == [_warning("errors")]


def test_case_and_whole_words_matter_and_order_follows_the_description(tmp_path: Path) -> None:
    config = _project(
        tmp_path,
        "Write a signup handler.",
        "Calls validateInput, then returns Errors or errorsList, and checks createUser.",
    )
    assert hint_warnings(load_project(config)) == [_warning("validateInput"), _warning("createUser")]


def test_a_word_the_prompt_uses_is_dropped(tmp_path: Path) -> None:
    config = _project(
        tmp_path,
        "Write a signup handler that takes isEmailTaken and createUser, and returns errors.",
        "A function ({ isEmailTaken, createUser }) returning { errors }.",
    )
    assert hint_warnings(load_project(config)) == []


def test_an_allowed_word_is_dropped(tmp_path: Path) -> None:
    config = _project(
        tmp_path,
        "Write a signup handler.",
        "Returns { errors } after validateInput.",
        "codeTests:\n  allow: [errors]\n",
    )
    assert hint_warnings(load_project(config)) == [_warning("validateInput")]


def test_with_coverage_names_the_words_are_the_api_names_ignore_not_applied(tmp_path: Path) -> None:
    config = _project(tmp_path, "Write a signup handler.", "Uses allocate and errors and Money.")
    project = load_project(config)
    got = hint_warnings(project, coverage_names=["Money", "Money.allocate", "sum"])
    assert got == [_warning("allocate"), _warning("Money")]


def test_python_api_reads_all_and_class_members_through_a_re_export(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .core import Money as Money, helper\n\n__all__ = ['Money', 'helper']\n")
    (pkg / "core.py").write_text(
        "class Money:\n    cents: int\n    _raw: int = 0\n    def add(self, o): ...\n    def _x(self): ...\n"
        "    @property\n    def currency(self): ...\n\ndef helper(): ...\ndef other(): ...\n"
    )
    assert public_api(pkg / "__init__.py") == ["Money", "Money.cents", "Money.add", "Money.currency", "helper"]
    assert public_api(pkg / "core.py") == ["Money", "Money.cents", "Money.add", "Money.currency", "helper", "other"]
