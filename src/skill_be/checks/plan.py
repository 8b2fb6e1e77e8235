"""What each check will do for a project, once its defaults are applied, and the settings it names checked.

Nothing here starts Node or reads the library: deciding and validating stays cheap, so `verify`
pays for the TypeScript machinery only when a check needs it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from skill_be.checks.typescript import has_project_typescript
from skill_be.paths import shown
from skill_be.project.config import Config, CoverageConfig, TypecheckConfig
from skill_be.project.where import Where

TS_LANGS = ("ts", "typescript")
PY_LANGS = ("python", "py")
_PATH_LIKE = re.compile(r"^(\.|/|~|[A-Za-z]:[\\/])|\.(ts|tsx|mts|cts|js|mjs|cjs|py)$")


@dataclass(frozen=True)
class Library:
    """The library the TypeScript preset compiles against: a source entry, or an installed package."""

    kind: str  # "path" or "package"
    name: str  # as written in the config
    entry: Path | None = None  # kind "path": the entry file
    package_name: str | None = None  # kind "path": the nearest package.json's name, an alias of the entry


@dataclass(frozen=True)
class TypecheckPlan:
    kind: str  # "typescript", "python" or "command"
    blocking: bool
    settings: TypecheckConfig | None  # None for the default preset


@dataclass(frozen=True)
class CoveragePlan:
    kind: str  # "typescript", "python" or "command"
    settings: CoverageConfig


def typecheck_plan(config: Config) -> TypecheckPlan | None:
    """None when the typecheck is off. Absent from the config, it is the TypeScript preset when the
    project has a usable TypeScript installed, else off."""
    t = config.checks.typecheck
    if t is False:
        return None
    if t is None:
        return TypecheckPlan("typescript", True, None) if has_project_typescript(config.root) else None
    if t is True:
        return TypecheckPlan("typescript", True, None)
    kind = "command" if t.command else (t.preset or "typescript")
    return TypecheckPlan(kind, t.blocking, t)


def coverage_plan(config: Config) -> CoveragePlan | None:
    c = config.checks.coverage
    if c is None:
        return None
    kind = "command" if c.command else (c.preset or "typescript")
    return CoveragePlan(kind, c)


def typecheck_where(config: Config) -> Where:
    return config.where("checks", "typecheck")  # with the file's places: errors name their line


def coverage_where(config: Config) -> Where:
    return config.where("checks", "coverage")


def nearest_package_name(start: Path) -> str | None:
    for folder in (start, *start.parents):
        pj = folder / "package.json"
        if pj.is_file():
            try:
                data = json.loads(pj.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            name = data.get("name") if isinstance(data, dict) else None
            return name if isinstance(name, str) and name else None
    return None


def installed_package(root: Path, name: str) -> Path | None:
    """The folder of package `name` in the nearest node_modules at or above `root` that has it."""
    for folder in (root, *root.parents):
        candidate = folder / "node_modules" / name
        if (candidate / "package.json").is_file():
            return candidate
    return None


def resolve_library(config: Config, value: str, where: Where) -> Library:
    """A path (relative to the config) to the source entry, or a package name in node_modules."""
    if _PATH_LIKE.search(value):
        entry = (config.root / Path(value).expanduser()).resolve()
        if not entry.is_file():
            raise where.error(
                f"{shown(entry)} does not exist; give the path to the library's source entry (such as "
                "./src/index.ts) or the name of a package installed in node_modules"
            )
        return Library("path", value, entry, nearest_package_name(entry.parent))
    if installed_package(config.root, value) is None:
        raise where.error(
            f'package "{value}" is not installed in node_modules (looked from {shown(config.root)} upward); '
            "install it (npm install), or give a path to its source entry such as ./src/index.ts"
        )
    return Library("package", value)


def entry_file(config: Config, value: str, where: Where) -> Path:
    entry = (config.root / Path(value).expanduser()).resolve()
    if not entry.is_file():
        raise where.error(f"{shown(entry)} does not exist; give the path to the library's source entry")
    return entry


def check_preludes(config: Config, t: TypecheckConfig) -> None:
    where = typecheck_where(config).key("preludes")
    for skill, path in t.preludes.items():
        if not (config.skills / skill / "SKILL.md").is_file():
            raise where.error(
                f'"{skill}" names no skill (no {shown(config.skills / skill / "SKILL.md")}); use a skill folder name'
            )
        if not path.is_file():
            raise where.key(skill).error(f"prelude {shown(path)} does not exist; create it or fix the path")
