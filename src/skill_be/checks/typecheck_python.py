"""The `python` typecheck preset: every python/py block compiles; with `mypy: true` they are type-checked.

Imports carry over from earlier blocks of the same SKILL.md (for mypy; a syntax check needs no
imports). Unknown names (`name-defined`) are tolerated, as the TypeScript preset tolerates TS2304.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from skill_be.checks import Problem
from skill_be.checks.plan import PY_LANGS, typecheck_where
from skill_be.errors import ConfigError
from skill_be.proc import StartFailed, run_sync, tail
from skill_be.project.config import Config, TypecheckConfig
from skill_be.project.loader import Project, Skill
from skill_be.project.skills import CodeBlock

MYPY_TIMEOUT = 600
TOLERATED = frozenset({"name-defined"})
_MYPY_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): error: (?P<message>.*?)(?:\s+\[(?P<code>[\w-]+)\])?$")


@dataclass(frozen=True)
class _File:
    skill: Skill
    block: CodeBlock
    insert_at: int  # 0-based line index where the carried imports go
    header: int  # how many lines they take


def check_mypy_installed(config: Config) -> None:
    if importlib.util.find_spec("mypy") is None:
        raise (
            typecheck_where(config)
            .key("mypy")
            .error(f"mypy is not installed for {sys.executable}; install it (pip install mypy) or set mypy: false")
        )


def _imports(tree: ast.Module) -> list[tuple[str, str]]:
    """(bound name, one import line) for each top-level import, `__future__` left out."""
    out: list[tuple[str, str]] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                bound = a.asname or a.name.split(".")[0]
                out.append((bound, f"import {a.name}" + (f" as {a.asname}" if a.asname else "")))
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            mod = "." * node.level + (node.module or "")
            for a in node.names:
                if a.name == "*":
                    continue
                out.append(
                    (a.asname or a.name, f"from {mod} import {a.name}" + (f" as {a.asname}" if a.asname else ""))
                )
    return out


def _defined(tree: ast.Module) -> set[str]:
    names: set[str] = {b for b, _ in _imports(tree)}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def _future_end(tree: ast.Module) -> int:
    end = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            end = node.end_lineno or node.lineno
    return end


def python_problems(project: Project, settings: TypecheckConfig | None) -> list[Problem]:
    """A syntax error in a block is a problem at its SKILL.md line; with mypy, so is a type error."""
    problems: list[Problem] = []
    files: list[tuple[_File, str]] = []
    for skill in project.skills:
        carried: dict[str, str] = {}
        for block in skill.doc.blocks:
            if block.lang not in PY_LANGS or block.skip:
                continue
            try:
                tree = ast.parse(block.code, filename="SKILL.md")
            except SyntaxError as e:
                line = block.line + (e.lineno or 1) - 1
                problems.append(
                    Problem(message=f"SyntaxError: {e.msg}", file=skill.skill_md, line=line, skill=skill.name)
                )
                continue
            defined = _defined(tree)
            header = [text for name, text in carried.items() if name not in defined]
            at = _future_end(tree)
            lines = block.code.split("\n")
            text = "\n".join([*lines[:at], *header, *lines[at:]]) + "\n"
            files.append((_File(skill, block, at, len(header)), text))
            for name, imp in _imports(tree):
                carried[name] = imp
    if settings is not None and settings.mypy and files:
        problems.extend(_mypy(project, settings, files))
    return sorted(problems, key=lambda p: (p.skill or "", p.line or 0))


def _mypy_path(project: Project, settings: TypecheckConfig) -> str:
    root = project.config.root
    parts = [str(root), str(root / "src")]
    if settings.library:
        lib = (root / settings.library).resolve()
        if lib.exists():
            parts.insert(0, str(lib.parent if lib.is_file() or (lib / "__init__.py").is_file() else lib))
    return os.pathsep.join(parts)


def _mypy(project: Project, settings: TypecheckConfig, files: list[tuple[_File, str]]) -> list[Problem]:
    check_mypy_installed(project.config)
    with tempfile.TemporaryDirectory(prefix="skill-be-mypy-") as tmp:
        by_name: dict[str, _File] = {}
        for i, (f, text) in enumerate(files):
            name = f"skill_be_block_{i}.py"
            Path(tmp, name).write_text(text, encoding="utf-8")
            by_name[name] = f
        argv = [
            sys.executable, "-m", "mypy", "--no-error-summary", "--show-error-codes", "--hide-error-context",
            "--no-color-output", "--no-pretty", "--check-untyped-defs", "--cache-dir", str(Path(tmp, ".cache")),
            *sorted(by_name),
        ]  # fmt: skip
        env = {**os.environ, "MYPYPATH": _mypy_path(project, settings)}
        try:
            # In the temporary folder, so the project's own mypy settings do not apply to the examples.
            done = run_sync(argv, cwd=Path(tmp), env=env, timeout=MYPY_TIMEOUT)
        except StartFailed as e:
            raise ConfigError(f"cannot start mypy ({e.why})") from None
        if done.timed_out:
            raise ConfigError(f"mypy did not finish within {MYPY_TIMEOUT} seconds")
        if done.returncode not in (0, 1):
            raise ConfigError(f"mypy failed (exit code {done.returncode}): {tail(done.stderr or done.stdout)}")
    problems: list[Problem] = []
    for raw in done.stdout.decode("utf-8", errors="replace").splitlines():
        m = _MYPY_LINE.match(raw.strip())
        if not m or m["code"] in TOLERATED:
            continue
        found = by_name.get(Path(m["file"]).name)
        if found is None:
            continue
        f = found
        n = int(m["line"])  # 1-based line of the written file
        if f.insert_at < n <= f.insert_at + f.header:
            continue  # a carried import: reported at the block it came from
        offset = n - 1 if n <= f.insert_at else n - 1 - f.header
        code = f"  [{m['code']}]" if m["code"] else ""
        problems.append(
            Problem(
                message=f"error: {m['message']}{code}",
                file=f.skill.skill_md,
                line=f.block.line + offset,
                skill=f.skill.name,
            )
        )
    return problems
