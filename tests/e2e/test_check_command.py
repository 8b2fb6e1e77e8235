"""`skill-be check` as a user runs it: stdout lines, stderr warnings, exit codes, --json."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "checks"

CODE_TESTS_CONFIG = """skills: ./skills
evals: ./evals
tests: ./skill-tests
model: {adapter: command, id: m, run: "true"}
grader: {adapter: command, id: g, run: "true"}
checks:
  typecheck: false
"""


def _check(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skill_be", "check", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def _tiny_money(tmp_path: Path) -> Path:
    root = tmp_path / "tiny-money"
    shutil.copytree(FIXTURES / "tiny-money", root)
    return root


def test_the_reference_example_passes(tmp_path: Path) -> None:
    done = _check(_tiny_money(tmp_path))
    assert done.stdout == "typecheck: passed (1 skill(s))\ncoverage: every API name is mentioned\nResult: pass\n"
    assert done.returncode == 0


def test_a_mistake_blocks_with_exit_1_and_json_has_file_and_line(tmp_path: Path) -> None:
    root = _tiny_money(tmp_path)
    md = root / "skills" / "money" / "SKILL.md"
    md.write_text(md.read_text().replace("allocate([1, 1, 1])", "allocate(1, 1, 1)"))
    done = _check(root)
    assert done.stdout == (
        "typecheck: 1 problem(s)\n"
        '  - skill "money", SKILL.md line 52: error TS2554: Expected 1 arguments, but got 3.\n'
        "coverage: every API name is mentioned\n"
        "Result: blocked by the typecheck\n"
    )
    assert done.returncode == 1
    as_json = _check(root, "--json")
    assert as_json.returncode == 1
    doc = json.loads(as_json.stdout)
    assert doc["result"] == "blocked"
    assert doc["checks"][0]["problems"] == [
        {
            "skill": "money",
            "file": "skills/money/SKILL.md",
            "line": 52,
            "message": "error TS2554: Expected 1 arguments, but got 3.",
        }
    ]
    assert doc["lines"][-1] == "Result: blocked by the typecheck"


def test_a_library_that_does_not_exist_is_exit_2_with_one_line(tmp_path: Path) -> None:
    root = _tiny_money(tmp_path)
    config = root / "skill-be.yaml"
    config.write_text(config.read_text().replace("library: ./lib/index.ts", "library: ./lib/nope.ts"))
    done = _check(root)
    assert done.returncode == 2
    assert done.stdout == ""
    assert re.match(r"skill-be\.yaml:\d+:\d+: checks\.typecheck\.library: lib/nope\.ts does not exist;", done.stderr)
    assert done.stderr.count("\n") == 1


def _code_tests_project(tmp_path: Path) -> Path:
    root = tmp_path / "signup"
    (root / "skills" / "signup").mkdir(parents=True)
    (root / "skills" / "signup" / "SKILL.md").write_text(
        "---\ndescription: Signup.\n---\n# Signup\n\nReturn `{ errors }` on a rejection.\n"
    )
    (root / "evals").mkdir()
    scenario = {
        "id": "new-signup",
        "prompt": "Write a signup handler.",
        "output": {"result": "A handler whose body is { errors } for a rejection."},
    }
    (root / "evals" / "signup.json").write_text(json.dumps({"skill": "signup", "scenarios": [scenario]}))
    tests = root / "skill-tests"
    (tests / "signup").mkdir(parents=True)
    (tests / "_shared").mkdir()
    (tests / "signup" / "new-signup.test.ts").write_text("import { test } from '@ngwes/skill-be/testing';\n")
    (tests / "signup" / "fakes.ts").write_text("export const fake = () => ({ created: [] as string[] });\n")
    (tests / "_shared" / "clock.ts").write_text("export const now = () => 0;\n")
    (root / "skill-be.yaml").write_text(CODE_TESTS_CONFIG)
    return root


def test_code_tests_parse_and_hint_warnings_on_stderr(tmp_path: Path) -> None:
    root = _code_tests_project(tmp_path)
    done = _check(root)
    assert done.stdout == "typecheck: off\ncoverage: off\ncode tests: 3 test file(s) parse\nResult: pass\n"
    assert done.stderr == (
        'warning: skill "signup" / scenario "new-signup": output.result names "errors", which the task prompt '
        "does not use. The baseline sees the output contract too, so this hints it.\n"
    )
    assert done.returncode == 0


def test_a_syntax_error_in_a_test_helper_blocks(tmp_path: Path) -> None:
    root = _code_tests_project(tmp_path)
    (root / "skill-tests" / "signup" / "fakes.ts").write_text("export const fake = () => ({\n  created: [,\n")
    done = _check(root)
    assert done.stdout.splitlines() == [
        "typecheck: off",
        "coverage: off",
        "code tests: 1 problem(s)",
        "  - skill-tests/signup/fakes.ts line 3: ']' expected.",
        "Result: blocked by the code tests",
    ]
    assert done.returncode == 1


def test_a_bad_package_list_is_exit_2(tmp_path: Path) -> None:
    root = _code_tests_project(tmp_path)
    (root / "test-packages.json").write_text('{"cargo": ["serde"]}')
    done = _check(root)
    assert done.returncode == 2
    assert 'section "cargo" is not supported' in done.stderr
