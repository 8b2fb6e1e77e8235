"""The public API of a Python module, read statically with `ast` (the module is never imported).

The names are the module's `__all__` when it lists string literals, else its public top-level
names (functions, classes, assignments, and names a package's `__init__` imports from its own
submodules), plus the public members of each public class, as `Class.member`.
"""

from __future__ import annotations

import ast
import importlib.machinery
import sys
from pathlib import Path

from skill_be.errors import ConfigError
from skill_be.paths import shown
from skill_be.project.files import read_text
from skill_be.project.where import Where

_MAX_DEPTH = 8  # re-exports followed through at most this many modules


def locate_module(entry: str, root: Path, where: Where) -> Path:
    """`entry` as a path (a .py file or a package folder, relative to the config) or a module name."""
    candidate = (root / Path(entry).expanduser()).resolve()
    if entry.endswith(".py") or "/" in entry or entry.startswith("."):
        if candidate.is_dir() and (candidate / "__init__.py").is_file():
            return candidate / "__init__.py"
        if candidate.is_file():
            return candidate
        raise where.error(f"{shown(candidate)} does not exist; give a module file, a package folder or a module name")
    found = _find_module(entry, [str(root), str(root / "src"), *sys.path])
    if found is None:
        raise where.error(
            f'module "{entry}" cannot be found (looked in {shown(root)}, {shown(root / "src")} and the installed '
            "packages); give a path to the module file instead, or install the library"
        )
    return found


def _find_module(name: str, search: list[str]) -> Path | None:
    path: list[str] | None = search
    origin: Path | None = None
    for part in name.split("."):
        if path is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(part, path)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            return None
        origin = Path(spec.origin)
        path = list(spec.submodule_search_locations) if spec.submodule_search_locations else None
    return origin


def _parse(path: Path) -> ast.Module:
    try:
        return ast.parse(read_text(path, what="module"), filename=str(path))
    except SyntaxError as e:
        raise ConfigError(f"{shown(path)}: line {e.lineno}: {e.msg}; the coverage check cannot read its API") from None


def _all_list(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        is_all = any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
        if is_all and isinstance(value, ast.List | ast.Tuple):
            strings = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(strings) == len(value.elts):
                return strings
    return None


def _relative_target(module: Path, node: ast.ImportFrom) -> Path | None:
    """The file a relative `from .x import y` reads from, when it is in the same tree."""
    if node.level == 0:
        return None
    base = module.parent
    for _ in range(node.level - 1):
        base = base.parent
    target = base.joinpath(*node.module.split(".")) if node.module else base
    if (target / "__init__.py").is_file():
        return target / "__init__.py"
    if target.with_suffix(".py").is_file():
        return target.with_suffix(".py")
    return None


def _top_level(module: Path, tree: ast.Module) -> dict[str, ast.ClassDef | tuple[Path, str] | None]:
    """Public top-level names: a class definition, a re-export to follow, or None for anything else."""
    names: dict[str, ast.ClassDef | tuple[Path, str] | None] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names[node.name] = None
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names[n.id] = None
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = None
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            target = _relative_target(module, node)
            for alias in node.names:
                if alias.name != "*":
                    names[alias.asname or alias.name] = (target, alias.name) if target else None
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            # `from x import y as y` is the typing convention for a re-export.
            for alias in node.names:
                if alias.asname is not None and alias.asname == alias.name:
                    names[alias.name] = None
    return {k: v for k, v in names.items() if not k.startswith("_")}


def _class_of(module: Path, name: str, depth: int) -> ast.ClassDef | None:
    if depth > _MAX_DEPTH:
        return None
    found = _top_level(module, _parse(module)).get(name)
    if isinstance(found, ast.ClassDef):
        return found
    if isinstance(found, tuple):
        return _class_of(found[0], found[1], depth + 1)
    return None


def _members(cls: ast.ClassDef) -> list[str]:
    out: list[str] = []
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.append(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.append(node.target.id)
        elif isinstance(node, ast.Assign):
            out.extend(t.id for t in node.targets if isinstance(t, ast.Name))
    return [m for m in dict.fromkeys(out) if not m.startswith("_")]


def public_api(module: Path) -> list[str]:
    """The module's API names, classes followed by their public members as `Class.member`."""
    tree = _parse(module)
    top = _top_level(module, tree)
    listed = _all_list(tree)
    names = listed if listed is not None else list(top)
    out: list[str] = []
    for name in names:
        out.append(name)
        found = top.get(name)
        cls = found if isinstance(found, ast.ClassDef) else None
        if isinstance(found, tuple):
            cls = _class_of(found[0], found[1], 1)
        if cls is not None:
            out.extend(f"{name}.{m}" for m in _members(cls))
    return list(dict.fromkeys(out))
