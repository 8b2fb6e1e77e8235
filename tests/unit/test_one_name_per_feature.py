"""The comparison with another version under one name per feature, one module per layer, read from
the source: `previous` (the skill as it was at REF, run as an arm) is `previous.py` in engine/,
results/, wiring/, github/ and reports/; `base` (the result file committed at the merge base) is
`base.py` in results/ and github/. A newcomer finds "where the previous-version arm is decided" in one
guess (engine/previous.py), the gate rule it adds where the other gate rules are (engine/gate.py),
and git started in one module (results/git_files.py). Each rule has a control: the checker, fed a
planted counterexample, finds it."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "src" / "skill_be"

# Where each feature's part of each layer lives, and a definition it must hold.
PREVIOUS = {
    "engine/previous.py": "previous_arm",  # the arm's plan per scenario: RUN, REUSE or SKIP
    "results/previous.py": "materialise",  # the skills at REF, and the arm's comparison
    "wiring/previous.py": "previous_version",  # the arm built for run, judged after each skill
    "github/previous.py": "against_args",  # the action's --against <merge base>
    "reports/previous.py": "previous_section",  # the report's words
}
BASE = {"results/base.py": "compare_with_base", "github/base.py": "apply_rules"}
# The spellings the feature went by before; users still type some (--against, --base), no module is named so.
OLD_NAMES = {
    "versus",
    "against",
    "with_base",
    "previous_arm",
    "base_compare",
    "previous_compare",
    "gate_rules",
    "compare",
}
# Defined once, where a newcomer looks: the decisions of the arm and of its gate rule.
ONE_HOME = {
    "previous_arm": "engine/previous.py",
    "rule_outcomes": "engine/gate.py",
    "previous_rule": "engine/gate.py",
    "worse_than_previous": "engine/gate.py",
}
# Where a `git` child may start: the reader of other commits, and the agent workspace's `git init`.
GIT_STARTERS = {"results/git_files.py", "agents/workspace.py"}


def _modules() -> dict[str, str]:
    return {p.relative_to(PKG).as_posix(): p.read_text(encoding="utf-8") for p in PKG.rglob("*.py")}


def _defined(source: str) -> set[str]:
    return {
        n.name
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def old_spellings(paths: list[str]) -> list[str]:
    return [p for p in paths if Path(p).stem in OLD_NAMES]


def misplaced(modules: dict[str, str]) -> list[str]:
    out = []
    for rel, source in modules.items():
        out += [
            f"{rel}: {name} (belongs in {home})"
            for name, home in ONE_HOME.items()
            if name in _defined(source) and rel != home
        ]
    return out


def git_starts(modules: dict[str, str]) -> list[str]:
    """Modules with a list or tuple whose first item is "git" (an argv), outside GIT_STARTERS."""
    out = []
    for rel, source in modules.items():
        for n in ast.walk(ast.parse(source)):
            if isinstance(n, ast.List | ast.Tuple) and n.elts:
                first = n.elts[0]
                if isinstance(first, ast.Constant) and first.value == "git" and rel not in GIT_STARTERS:
                    out.append(f"{rel}:{n.lineno}")
    return out


def test_each_layer_has_one_module_per_feature() -> None:
    modules = _modules()
    for rel, name in {**PREVIOUS, **BASE}.items():
        assert rel in modules, f"{rel} is missing"
        assert name in _defined(modules[rel]), f"{rel} does not define {name}"


def test_no_module_keeps_an_old_spelling() -> None:
    assert old_spellings(list(_modules())) == []
    assert old_spellings(["wiring/versus.py", "results/gate_rules.py", "wiring/previous.py"]) == [
        "wiring/versus.py",
        "results/gate_rules.py",
    ]  # control


def test_the_decisions_have_one_home() -> None:
    modules = _modules()
    assert misplaced(modules) == []
    planted = {**modules, "results/rules.py": "def rule_outcomes():\n    return {}\n"}
    assert misplaced(planted) == ["results/rules.py: rule_outcomes (belongs in engine/gate.py)"]  # control


def test_git_starts_in_one_module() -> None:
    modules = _modules()
    assert git_starts(modules) == []
    planted = {**modules, "github/top.py": 'run_sync(["git", "rev-parse", "--show-toplevel"])\n'}
    assert git_starts(planted) == ["github/top.py:1"]  # control
