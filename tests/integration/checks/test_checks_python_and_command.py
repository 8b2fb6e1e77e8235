"""The python presets (syntax, mypy, API read with ast) and the `command` variants of both checks."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from skill_be.checks.kinds import command as commandline
from skill_be.checks.runner import collect
from skill_be.errors import ConfigError
from skill_be.project.loader import load_project

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "py-money"

CHECK_BLOCK = """import ast
import os
import sys

if os.environ.get("SKILL_BE_LANG") not in ("python", "py"):
    sys.exit(0)
if os.environ.get("SKILL_BE_SKILL") != "demo":
    print("wrong skill", file=sys.stderr)
    sys.exit(3)
try:
    ast.parse(sys.stdin.read())
except SyntaxError as error:
    print(f"line {error.lineno}: {error.msg}", file=sys.stderr)
    sys.exit(1)
"""

COMMAND_SKILL = """# Demo

```python
print("fine")
```

```python
print("broken"
```

```bash
echo anything goes here
```

```python skip
print("skipped"
```

```
untagged (
```

```py
import sys
sys.stdout.write("only stdout\\n")
raise SystemExit(4) if False else None
def f(:
```
"""


@pytest.fixture
def py_money(tmp_path: Path) -> Path:
    root = tmp_path / "py-money"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".skill-be", "__pycache__", ".mypy_cache"))
    return root


def _lines(config: Path) -> list[tuple[str, ...]]:
    return [o.lines for o in collect(load_project(config), lambda _: None).outcomes]


def test_the_python_example_passes_both_presets(py_money: Path) -> None:
    assert _lines(py_money / "skill-be.yaml") == [
        ("typecheck: passed (1 skill(s))",),
        ("coverage: every API name is mentioned",),
    ]


def test_python_preset_mypy_errors_at_exact_lines_with_imports_carried_over(py_money: Path) -> None:
    md = py_money / "skills" / "money" / "SKILL.md"
    text = md.read_text()
    # Line 23's block imports nothing: Money comes from the first block's import.
    md.write_text(
        text.replace("allocate([1, 1, 1])", "allocate(1, 1, 1)").replace(
            'total(prices, "EUR").format()', "total(prices).format()"
        )
    )
    assert _lines(py_money / "skill-be.yaml")[0] == (
        "typecheck: 3 problem(s)",
        '  - skill "money", SKILL.md line 15: error: Missing positional argument "currency" in call to "total"  '
        "[call-arg]",
        '  - skill "money", SKILL.md line 23: error: Too many arguments for "allocate" of "Money"  [call-arg]',
        '  - skill "money", SKILL.md line 23: error: Argument 1 to "allocate" of "Money" has incompatible type '
        '"int"; expected "list[int]"  [arg-type]',
    )


def test_python_preset_without_mypy_reports_syntax_errors_only(py_money: Path) -> None:
    config = py_money / "skill-be.yaml"
    config.write_text(config.read_text().replace("mypy: true", "mypy: false"))
    md = py_money / "skills" / "money" / "SKILL.md"
    md.write_text(
        md.read_text()
        .replace("allocate([1, 1, 1])", "allocate(1, 1, 1)")
        .replace("    print(error)", "    print(error")
    )
    assert _lines(config)[0] == (
        "typecheck: 1 problem(s)",
        "  - skill \"money\", SKILL.md line 36: SyntaxError: '(' was never closed",
    )


def test_python_coverage_counts_a_member_name_in_an_eval_string(py_money: Path) -> None:
    # Only the eval file's criterion names allocate now; that covers Money.allocate.
    md = py_money / "skills" / "money" / "SKILL.md"
    md.write_text(md.read_text().replace("`allocate`", "the allocation method").replace(".allocate(", ".share("))
    config = py_money / "skill-be.yaml"
    config.write_text(config.read_text().replace("mypy: true", "mypy: false"))
    assert "allocate" not in md.read_text()
    assert _lines(config)[1] == ("coverage: every API name is mentioned",)


def test_python_coverage_entry_as_a_path_and_ignore(py_money: Path) -> None:
    (py_money / "evals" / "money.json").write_text(
        (py_money / "evals" / "money.json").read_text().replace("allocate", "split")
    )
    md = py_money / "skills" / "money" / "SKILL.md"
    md.write_text(md.read_text().replace("allocate", "share"))
    config = py_money / "skill-be.yaml"
    text = config.read_text().replace("mypy: true", "mypy: false")
    config.write_text(text.replace("entry: tiny_money ", "entry: ./tiny_money/__init__.py "))
    assert _lines(config)[1] == ("coverage: 1 API name(s) not mentioned in any SKILL.md or eval file: Money.allocate",)
    config.write_text(config.read_text().replace("blocking: true", "blocking: true\n    ignore: [Money.allocate]"))
    assert _lines(config)[1] == ("coverage: every API name is mentioned",)


def test_typecheck_command_runs_each_tagged_block_with_its_language_and_skill(
    make_project: Callable[..., Path],
) -> None:
    config = make_project(
        "checks:\n  typecheck:\n    command: python3 scripts/check_block.py\n",
        skills={"demo": COMMAND_SKILL},
        files={"scripts/check_block.py": CHECK_BLOCK},
    )
    outcomes = collect(load_project(config), lambda _: None).outcomes
    assert outcomes[0].lines == (
        "typecheck: 2 problem(s)",
        "  - skill \"demo\", SKILL.md line 8: the typecheck command failed (exit code 1): line 1: '(' was never closed",
        '  - skill "demo", SKILL.md line 24: the typecheck command failed (exit code 1): line 4: invalid syntax',
    )
    assert [(p.file, p.line) for p in outcomes[0].problems] == [
        (config.parent / "skills" / "demo" / "SKILL.md", 8),
        (config.parent / "skills" / "demo" / "SKILL.md", 24),
    ]


def test_typecheck_command_shows_stdout_when_stderr_is_empty(make_project: Callable[..., Path]) -> None:
    config = make_project(
        "checks:\n  typecheck:\n    command: python3 fail.py\n",
        skills={"demo": "# Demo\n\n```yaml\na: 1\n```\n"},
        files={"fail.py": "import os\nprint('cannot check', os.environ['SKILL_BE_LANG'])\nraise SystemExit(2)\n"},
    )
    assert _lines(config)[0] == (
        "typecheck: 1 problem(s)",
        '  - skill "demo", SKILL.md line 4: the typecheck command failed (exit code 2): cannot check yaml',
    )


def test_typecheck_command_time_limit(make_project: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commandline, "TIMEOUT", 0.5)
    config = make_project(
        "checks:\n  typecheck:\n    command: python3 slow.py\n",
        skills={"demo": "# Demo\n\n```sh\nsleep\n```\n"},
        files={"slow.py": "import time\ntime.sleep(30)\n"},
    )
    assert _lines(config)[0] == (
        "typecheck: 1 problem(s)",
        '  - skill "demo", SKILL.md line 4: the typecheck command did not finish within 0.5 seconds',
    )


def test_coverage_command_names_match_exactly_as_printed(make_project: Callable[..., Path]) -> None:
    lister = "print('allocate')\nprint('Money.format')\nprint('zero')\nprint('')\nprint('allocate')\n"
    config = make_project(
        "checks:\n  typecheck: false\n  coverage:\n    command: python3 list_api.py\n    ignore: [zero]\n",
        skills={"demo": "# Demo\n\nUse `allocate` and `format`.\n"},
        files={"list_api.py": lister},
    )
    outcomes = collect(load_project(config), lambda _: None).outcomes
    assert outcomes[0].lines == ("typecheck: off",)
    assert outcomes[1].lines == (
        "coverage: 1 API name(s) not mentioned in any SKILL.md or eval file, not blocking: Money.format",
    )


def test_coverage_command_that_fails_is_a_config_error(
    make_project: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = make_project(
        "checks:\n  coverage:\n    command: python3 bad.py\n",
        files={"bad.py": "import sys\nprint('no module tiny_money', file=sys.stderr)\nsys.exit(1)\n"},
    )
    monkeypatch.chdir(config.parent)
    with pytest.raises(ConfigError) as e:
        collect(load_project(config), lambda _: None)
    assert str(e.value) == (
        "skill-be.yaml:13:14: checks.coverage.command: failed (exit code 1): no module tiny_money; fix the command"
    )
