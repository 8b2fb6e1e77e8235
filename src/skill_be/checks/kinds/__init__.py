"""Check kinds behind one interface, chosen by name: the TypeScript preset, the Python preset and
the `command` variant. A kind is a module with two functions, `typecheck` and `coverage`, that check
their settings (a ConfigError before anything runs) and return a typed job; the runner gathers the
jobs' Node helper requests into one helper run, then asks each job for its result.

A new preset is one new module here and one line in KINDS."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from skill_be.checks import Problem
from skill_be.project.config import CoverageConfig, TypecheckConfig
from skill_be.project.loader import Project

# name -> module implementing `Kind`
KINDS: Mapping[str, str] = {
    "typescript": "skill_be.checks.kinds.typescript",
    "python": "skill_be.checks.kinds.python",
    "command": "skill_be.checks.kinds.command",
}

Warn = Callable[[str], None]


class HelperRequest(NamedTuple):
    """One job for the Node checks helper: its name in the request ("typecheck", "coverage",
    "parse") and its JSON payload. Every request of a command goes to one helper run."""

    name: str
    payload: Mapping[str, object]


class TypecheckJob(Protocol):
    @property
    def helper(self) -> HelperRequest | None:
        """What it needs from the Node helper (the TypeScript preset), or None."""
        ...

    def problems(self, project: Project, answer: Mapping[str, Any] | None, warn: Warn) -> list[Problem]:
        """The problems found; `answer` is the helper's answer to `helper` (None without one)."""
        ...


class CoverageJob(Protocol):
    @property
    def helper(self) -> HelperRequest | None: ...

    @property
    def exact(self) -> bool:
        """True when names are matched as printed; False when `Class.member` is covered by the member."""
        ...

    def names(self, project: Project, answer: Mapping[str, Any] | None) -> list[str]:
        """The library's public API names, in order, without repeats."""
        ...


class Kind(Protocol):
    def typecheck(self, project: Project, settings: TypecheckConfig | None, warn: Warn) -> TypecheckJob:
        """Check the settings (ConfigError) and return the job; `settings` is None for the default preset."""
        ...

    def coverage(self, project: Project, settings: CoverageConfig, warn: Warn) -> CoverageJob: ...


def kind(name: str) -> Kind:
    """The kind's module; `name` was checked against KINDS when the config was read."""
    module: Kind = importlib.import_module(KINDS[name])
    return module


def files_payload(files: tuple[Path, ...]) -> HelperRequest:
    """The helper's `parse` job: each code-test file must parse as TypeScript."""
    return HelperRequest("parse", {"files": [str(f) for f in files]})
