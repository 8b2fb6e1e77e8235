"""Running the checks: settings validated first, then one Node helper run for every TypeScript job."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from skill_be.checks import CheckOutcome, Problem
from skill_be.checks.plan import (
    CoveragePlan,
    Library,
    TypecheckPlan,
    check_preludes,
    coverage_plan,
    coverage_where,
    entry_file,
    resolve_library,
    typecheck_plan,
    typecheck_where,
)
from skill_be.checks.typescript import TypeScript
from skill_be.project.codetest_layout import SHARED
from skill_be.project.loader import Project

TS_SUFFIXES = (".ts", ".mts", ".cts", ".tsx")


@dataclass(frozen=True)
class Prepared:
    """The checks of a project with every setting they name checked."""

    typecheck: TypecheckPlan | None
    coverage: CoveragePlan | None
    library: Library | None = None
    coverage_entry: Path | None = None
    typescript: TypeScript | None = None
    test_files: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Collected:
    outcomes: list[CheckOutcome]
    coverage_names: list[str] | None = None  # the API names coverage read, before `ignore`
    warnings: list[str] = field(default_factory=list)


def code_test_files(project: Project) -> list[Path]:
    """Every TypeScript file under each skill's tests folder and under `_shared`."""
    tests = project.config.tests
    if tests is None:
        return []
    files: set[Path] = set()
    for folder in [tests / s.name for s in project.skills] + [tests / SHARED]:
        if folder.is_dir():
            files.update(p for p in folder.rglob("*") if p.is_file() and p.suffix in TS_SUFFIXES)
    return sorted(files)


def prepare(project: Project, warn: Callable[[str], None], *, parse_tests: bool = False) -> Prepared:
    """Check every setting the checks name; a problem is a ConfigError before anything runs."""
    config = project.config
    tplan = typecheck_plan(config)
    cplan = coverage_plan(config)
    library: Library | None = None
    entry: Path | None = None
    needs_ts = False
    if tplan is not None:
        s = tplan.settings
        if s is not None:
            check_preludes(config, s)
        if tplan.kind == "typescript":
            needs_ts = True
            if s is not None and s.library:
                library = resolve_library(config, s.library, typecheck_where(config).key("library"))
        elif tplan.kind == "command" and s is not None and s.command:
            from skill_be.checks.commandline import command_argv

            command_argv(config, s.command, typecheck_where(config).key("command"))
        elif tplan.kind == "python" and s is not None and s.mypy:
            from skill_be.checks.typecheck_python import check_mypy_installed

            check_mypy_installed(config)
    if cplan is not None:
        c = cplan.settings
        where = coverage_where(config)
        if cplan.kind == "typescript":
            needs_ts = True
            entry = entry_file(config, c.entry or "", where.key("entry"))
        elif cplan.kind == "python":
            from skill_be.checks.python_api import locate_module

            entry = locate_module(c.entry or "", config.root, where.key("entry"))
        elif c.command:
            from skill_be.checks.commandline import command_argv

            command_argv(config, c.command, where.key("command"))
    files = tuple(code_test_files(project)) if parse_tests else ()
    needs_ts = needs_ts or bool(files)
    ts: TypeScript | None = None
    if needs_ts:
        from skill_be.checks.typescript import find_typescript

        ts = find_typescript(config.root, warn)
    return Prepared(tplan, cplan, library, entry, ts, files)


def collect(project: Project, warn: Callable[[str], None], *, parse_tests: bool = False) -> Collected:
    """Run every configured check: typecheck, coverage, then (with parse_tests) the code-test parse."""
    from skill_be.checks import coverage, typecheck

    p = prepare(project, warn, parse_tests=parse_tests)
    config = project.config
    jobs: dict[str, object] = {}
    if p.typecheck is not None and p.typecheck.kind == "typescript":
        preludes = p.typecheck.settings.preludes if p.typecheck.settings else {}
        jobs["typecheck"] = typecheck.typescript_job(project, p.library, preludes)
    if p.coverage is not None and p.coverage.kind == "typescript" and p.coverage_entry is not None:
        jobs["coverage"] = {"root": str(config.root), "entry": str(p.coverage_entry)}
    if p.test_files:
        jobs["parse"] = {"files": [str(f) for f in p.test_files]}
    answer: dict[str, object] = {}
    if jobs and p.typescript is not None:
        from skill_be.checks.node_helper import run_helper

        answer = run_helper(p.typescript, jobs)

    outcomes: list[CheckOutcome] = []
    if p.typecheck is None:
        outcomes.append(typecheck.off())
    else:
        if p.typecheck.kind == "typescript":
            problems = typecheck.typescript_problems(answer["typecheck"], project, warn)  # type: ignore[arg-type]
        elif p.typecheck.kind == "python":
            from skill_be.checks.typecheck_python import python_problems

            problems = python_problems(project, p.typecheck.settings)
        else:
            assert p.typecheck.settings is not None and p.typecheck.settings.command
            problems = typecheck.command_problems(project, p.typecheck.settings.command)
        outcomes.append(typecheck.outcome(p.typecheck, problems, len(project.skills)))

    names: list[str] | None = None
    if p.coverage is None:
        outcomes.append(coverage.off())
    else:
        names = _coverage_names(project, p, answer)
        missing = coverage.uncovered(names, p.coverage, coverage.Mentions(coverage.mention_texts(project)))
        outcomes.append(coverage.outcome(p.coverage, missing, config.path))

    if parse_tests and config.tests is not None:
        parsed = answer.get("parse") or {"problems": []}
        outcomes.append(_parse_outcome(parsed["problems"], len(p.test_files)))  # type: ignore[index]
    return Collected(outcomes, names)


def _coverage_names(project: Project, p: Prepared, answer: dict[str, object]) -> list[str]:
    from skill_be.checks import coverage

    assert p.coverage is not None
    if p.coverage.kind == "typescript":
        got = answer["coverage"]
        assert isinstance(got, dict)
        if got.get("error"):
            raise coverage_where(project.config).key("entry").error(str(got["error"]))
        return [str(n) for n in got["names"]]
    if p.coverage.kind == "python":
        from skill_be.checks.python_api import public_api

        assert p.coverage_entry is not None
        return public_api(p.coverage_entry)
    assert p.coverage.settings.command
    return coverage.command_names(project, p.coverage.settings.command)


def coverage_names(project: Project, warn: Callable[[str], None]) -> list[str] | None:
    """The API names coverage reads, or None when coverage is off (the hint-word check uses them)."""
    p = prepare(project, warn)
    if p.coverage is None:
        return None
    answer: dict[str, object] = {}
    if p.coverage.kind == "typescript" and p.typescript is not None:
        from skill_be.checks.node_helper import run_helper

        answer = run_helper(
            p.typescript, {"coverage": {"root": str(project.config.root), "entry": str(p.coverage_entry)}}
        )
    return _coverage_names(project, p, answer)


def _parse_outcome(raw: list[dict[str, object]], count: int) -> CheckOutcome:
    if not raw:
        return CheckOutcome("code tests", (f"code tests: {count} test file(s) parse",))
    problems = tuple(
        Problem(message=str(r["message"]), file=Path(str(r["file"])), line=int(str(r["line"]))) for r in raw
    )
    return CheckOutcome(
        "code tests",
        (f"code tests: {len(problems)} problem(s)", *(f"  - {x.text()}" for x in problems)),
        blocks=True,
        blocker="the code tests",
        problems=problems,
    )
