"""One place errors become exit codes (`skill_be.errors.exit_code`): no handler of skill-be's own
errors, in the command line or the action, picks a number for them itself."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "skill_be"
OURS = {"SkillBeError", "UsageError", "ConfigError", "Interrupted", "KeyboardInterrupt"}


def numbered_handlers(src: Path) -> list[str]:
    """`file:line` of each `except <one of ours>` whose body returns an int literal."""
    out = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=rel)):
            if not isinstance(node, ast.ExceptHandler) or node.type is None:
                continue
            names = {n.id if isinstance(n, ast.Name) else getattr(n, "attr", "") for n in ast.walk(node.type)}
            if not names & OURS:
                continue
            for inner in (n for stmt in node.body for n in ast.walk(stmt)):
                value = inner.value if isinstance(inner, ast.Return) else None
                if isinstance(value, ast.Constant) and isinstance(value.value, int):
                    out.append(f"{rel}:{value.lineno}")
    return out


def test_no_handler_of_our_errors_picks_its_own_exit_code() -> None:
    assert numbered_handlers(SRC) == []


def test_the_rule_sees_a_handler_that_returns_2(tmp_path: Path) -> None:
    (tmp_path / "github").mkdir()
    (tmp_path / "github" / "action.py").write_text(
        "def main():\n    try:\n        read()\n    except UsageError as e:\n        print(e)\n        return 2\n"
        "    except ValueError:\n        return 2\n",
        encoding="utf-8",
    )
    assert numbered_handlers(tmp_path) == ["github/action.py:6"]
