"""One path to a model: an adapter's `complete` is awaited only by the engine's `Engine.call` (the
per-call timeout, the shared limit, the response cache, the key redacted from a failure) and its
`choose` (trigger evals) only by the engine's trigger runner. An adapter may build its own `choose`
on its `complete` (adapters/choice.py). Commands, the action and the reports never call a model."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "skill_be"
ALLOWED = {
    "complete": ("engine/runner.py", "adapters/"),
    "choose": ("engine/triggers.py", "adapters/", "agents/triggers.py"),
}


def model_calls(src: Path) -> list[str]:
    """`file:line method` for each call of an adapter method outside the places allowed to make it."""
    out = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not allowed(rel, node.func.attr):
                out.append(f"{rel}:{node.lineno} {node.func.attr}")
    return out


def allowed(rel: str, method: str) -> bool:
    places = ALLOWED.get(method)
    return places is None or any(rel == p or (p.endswith("/") and rel.startswith(p)) for p in places)


def test_only_the_engine_calls_a_model() -> None:
    assert model_calls(SRC) == []


def test_the_rule_sees_a_command_that_calls_a_model_itself(tmp_path: Path) -> None:
    (tmp_path / "commands").mkdir()
    (tmp_path / "commands" / "init_draft.py").write_text(
        "async def f(adapter, p, ctx):\n    return await adapter.complete(p, ctx)\n", encoding="utf-8"
    )
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "runner.py").write_text("async def g(m, p, c):\n    await m.adapter.complete(p, c)\n")
    assert model_calls(tmp_path) == ["commands/init_draft.py:2 complete"]
