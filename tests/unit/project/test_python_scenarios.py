"""A scenario whose output contract asks for Python: its language, its names, its test file, its
prompt paragraph, the block read from a reply, the hint words and the pip section of a package list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.errors import error_of

from skill_be.codetests.answer import extract_code, no_block
from skill_be.codetests.contract import contract_paragraph
from skill_be.codetests.hints import hint_warnings
from skill_be.codetests.packages import read_package_list
from skill_be.errors import ConfigError
from skill_be.project.evals import load_eval
from skill_be.project.loader import load_project

CONFIG = """skills: ./skills
evals: ./evals
tests: ./skill-tests
model: {adapter: command, id: m, run: "true"}
grader: {adapter: command, id: g, run: "true"}
checks:
  typecheck: false
"""


def evals(tmp_path: Path, output: dict[str, object], **more: object) -> Path:
    path = tmp_path / "evals" / "pay.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    scenario = {"id": "pay", "prompt": "Write pay.", "output": output, **more}
    path.write_text(json.dumps({"skill": "pay", "scenarios": [scenario]}))
    return path


def project(tmp_path: Path, output: dict[str, object], tests: dict[str, str], skill: str = "# pay\n") -> Path:
    (tmp_path / "skills" / "pay").mkdir(parents=True)
    (tmp_path / "skills" / "pay" / "SKILL.md").write_text(f"---\nname: pay\n---\n{skill}")
    evals(tmp_path, output)
    (tmp_path / "skill-tests" / "pay").mkdir(parents=True, exist_ok=True)
    for name, text in tests.items():
        (tmp_path / "skill-tests" / "pay" / name).write_text(text)
    (tmp_path / "skill-be.yaml").write_text(CONFIG)
    return tmp_path / "skill-be.yaml"


def test_language_python_is_the_contracts_language_and_not_an_export(tmp_path: Path) -> None:
    (scenario,) = load_eval(evals(tmp_path, {"language": "python", "result": "f", "reason": "why"})).scenarios
    assert scenario.language == "python"
    assert scenario.output == (("result", "f"), ("reason", "why"))


def test_without_a_language_it_is_typescript_and_language_stays_an_export_name(tmp_path: Path) -> None:
    (scenario,) = load_eval(evals(tmp_path, {"result": "f", "language": "the user's language code"})).scenarios
    assert scenario.language == "typescript"
    assert scenario.output == (("result", "f"), ("language", "the user's language code"))


@pytest.mark.parametrize(
    ("output", "says"),
    [
        ({"language": "Python", "result": "f"}, '"Python" is not a language skill-be knows'),
        ({"language": "python", "result": "f", "class": "x"}, '"class" is not a name a module can define'),
        ({"language": "python", "result": "f", "$x": "x"}, '"$x" is not a name a module can define'),
    ],
)
def test_bad_python_contracts_are_config_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: dict[str, object], says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    assert says in error_of(lambda: load_eval(evals(tmp_path, output)))


def test_a_python_name_that_javascript_reserves_is_fine(tmp_path: Path) -> None:
    (scenario,) = load_eval(evals(tmp_path, {"language": "python", "result": "f", "delete": "d"})).scenarios
    assert scenario.output == (("result", "f"), ("delete", "d"))


def test_an_agent_writing_a_py_file_has_python_tests(tmp_path: Path) -> None:
    path = evals(tmp_path, {"file": "pay.py", "result": "f"}, mode="agent", workspace={"files": {"README.md": "x"}})
    (scenario,) = load_eval(path, tmp_path).scenarios
    assert scenario.language == "python" and scenario.output == (("result", "f"),)


def test_the_test_file_is_test_scenario_py(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = project(tmp_path, {"language": "python", "result": "f"}, {"test_pay.py": "", "fakes.py": ""})
    (skill,) = load_project(config).skills
    assert skill.test_files == {"pay": tmp_path / "skill-tests" / "pay" / "test_pay.py"}


@pytest.mark.parametrize(
    ("tests", "says"),
    [
        ({}, 'scenario "pay" has an output but no test file; create skill-tests/pay/test_pay.py'),
        ({"test_pay.py": "", "test_other.py": ""}, "skill-tests/pay/test_other.py: names no scenario"),
        ({"pay.test.ts": ""}, 'scenario "pay" is written in Python (output.language), so its tests go in'),
    ],
)
def test_the_layout_rules_hold_for_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tests: dict[str, str], says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    config = project(tmp_path, {"language": "python", "result": "f"}, tests)
    assert says in error_of(lambda: load_project(config))


def test_a_typescript_skills_test_py_file_stays_a_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = project(tmp_path, {"result": "f"}, {"pay.test.ts": "", "test_helpers.py": ""})
    (skill,) = load_project(config).skills
    assert list(skill.test_files) == ["pay"]


def test_the_prompt_paragraph_asks_for_one_python_block() -> None:
    assert contract_paragraph((("result", "f"),), "python") == (
        "Answer format: reply with exactly one Python code block. The code must be a complete Python module "
        "that defines these names at its top level:\n- `result`: f"
    )
    assert contract_paragraph((("result", "f"),)).startswith("Answer format: reply with exactly one TypeScript")


def test_the_answer_is_the_last_python_block() -> None:
    reply = "```python\nx = 1\n```\ntext\n```ts\nconst y = 2;\n```\n```py\nresult = 3\n```"
    code = extract_code(reply, "python")
    assert code is not None and code.code == "result = 3"
    assert extract_code("```ts\nx\n```", "python") is None
    assert no_block("python") == "the reply has no code block tagged python, py or python3"


def test_hint_words_of_a_python_scenario_leave_out_pythons_own_words(tmp_path: Path) -> None:
    skill = "# pay\n\n```python\ndef pay(ledger):\n    ledger.transfer(None, len(x))\n```\n"
    output = {"language": "python", "result": "returns None or the len of transfer"}
    config = project(tmp_path, output, {"test_pay.py": ""}, skill)
    warnings = hint_warnings(load_project(config))
    assert [w.split("names ")[1].split(",")[0] for w in warnings] == ['"transfer"']


def test_a_package_list_has_an_npm_and_a_pip_section(tmp_path: Path) -> None:
    path = tmp_path / "test-packages.json"
    path.write_text(json.dumps({"npm": ["zod@3"], "pip": ["attrs==23.*", "./vendor/lib"]}))
    plist = read_package_list(path)
    assert plist.npm == ("zod@3",)
    assert plist.pip == ("attrs==23.*", str((tmp_path / "vendor" / "lib").resolve()))
    assert plist.entries("python") == plist.pip and plist.entries("typescript") == plist.npm


def test_another_section_is_still_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "test-packages.json"
    path.write_text(json.dumps({"cargo": ["serde"]}))
    with pytest.raises(ConfigError, match='section "cargo" is not supported'):
        read_package_list(path)
