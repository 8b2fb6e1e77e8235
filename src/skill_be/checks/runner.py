"""Running the checks: every setting checked first, then one Node helper run for all the jobs that
need it, then each check's result. The kinds (presets, `command`) are in checks/kinds/."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from skill_be.checks import CheckOutcome, Problem
from skill_be.checks.kinds import CoverageJob, HelperRequest, TypecheckJob, files_payload, kind
from skill_be.checks.plan import CoveragePlan, TypecheckPlan, check_preludes, coverage_plan, typecheck_plan
from skill_be.project.codetest_layout import SHARED
from skill_be.project.loader import Project

if TYPE_CHECKING:
    from skill_be.checks.typescript import TypeScript

TS_SUFFIXES = (".ts", ".mts", ".cts", ".tsx")


class Prepared(NamedTuple):  # NamedTuples, not dataclasses, on verify's path (start-up time)
    """The checks of a project, with every setting they name checked, as jobs."""

    typecheck: TypecheckPlan | None
    coverage: CoveragePlan | None
    typecheck_job: TypecheckJob | None = None
    coverage_job: CoverageJob | None = None
    test_files: tuple[Path, ...] = ()
    typescript: TypeScript | None = None  # found when a job needs the Node helper

    def helper_requests(self) -> list[HelperRequest]:
        jobs = [j.helper for j in (self.typecheck_job, self.coverage_job) if j is not None and j.helper is not None]
        return [*jobs, files_payload(self.test_files)] if self.test_files else jobs


class Collected(NamedTuple):
    outcomes: list[CheckOutcome]
    coverage_names: list[str] | None = None  # the API names coverage read, before `ignore`


def python_test_files(project: Project) -> list[Path]:
    """Every Python file under the tests folder of each skill that has a Python scenario, and under
    `_shared` when one does (a skill without one keeps its .py files as plain helpers, unparsed)."""
    tests = project.config.tests
    if tests is None:
        return []
    skills = [s for s in project.skills if any(sc.language == "python" for sc in s.evals.scenarios if sc.output)]
    folders = [tests / s.name for s in skills] + ([tests / SHARED] if skills else [])
    files = {p for folder in folders if folder.is_dir() for p in folder.rglob("*.py") if p.is_file()}
    return sorted(files)


def python_problems(files: list[Path]) -> list[dict[str, object]]:
    """Each file that does not parse as Python, as the parse job reports a problem (nothing runs)."""
    import ast

    out: list[dict[str, object]] = []
    for f in files:
        try:
            ast.parse(f.read_bytes(), filename=str(f))
        except SyntaxError as e:
            out.append({"file": str(f), "line": e.lineno or 1, "message": e.msg})
        except (OSError, ValueError) as e:
            out.append({"file": str(f), "line": 1, "message": f"cannot be read ({e})"})
    return out


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
    tplan = typecheck_plan(project.config)
    cplan = coverage_plan(project.config)
    tjob: TypecheckJob | None = None
    cjob: CoverageJob | None = None
    if tplan is not None:
        if tplan.settings is not None:
            check_preludes(project.config, tplan.settings)
        tjob = kind(tplan.kind).typecheck(project, tplan.settings, warn)
    if cplan is not None:
        cjob = kind(cplan.kind).coverage(project, cplan.settings, warn)
    files = tuple(code_test_files(project)) if parse_tests else ()
    prepared = Prepared(tplan, cplan, tjob, cjob, files)
    if not prepared.helper_requests():
        return prepared
    from skill_be.checks.typescript import find_typescript

    # Found (or installed) now, so a missing Node stops the command before anything runs.
    return prepared._replace(typescript=find_typescript(project.config.root, warn))


def _helper(p: Prepared) -> dict[str, Any]:
    """One Node helper run for every job that needs it; {} when none does."""
    requests = p.helper_requests()
    if not requests or p.typescript is None:
        return {}
    from skill_be.checks.node_helper import run_helper

    return run_helper(p.typescript, {r.name: r.payload for r in requests})


def collect(project: Project, warn: Callable[[str], None], *, parse_tests: bool = False) -> Collected:
    """Run every configured check: typecheck, coverage, then (with parse_tests) the code-test parse."""
    from skill_be.checks import coverage, typecheck

    p = prepare(project, warn, parse_tests=parse_tests)
    answer = _helper(p)
    outcomes: list[CheckOutcome] = []
    if p.typecheck is None or p.typecheck_job is None:
        outcomes.append(typecheck.off())
    else:
        problems = p.typecheck_job.problems(project, _answer(p.typecheck_job.helper, answer), warn)
        outcomes.append(typecheck.outcome(p.typecheck, problems, len(project.skills)))

    names: list[str] | None = None
    if p.coverage is None or p.coverage_job is None:
        outcomes.append(coverage.off())
    else:
        names = p.coverage_job.names(project, _answer(p.coverage_job.helper, answer))
        mentions = coverage.Mentions(coverage.mention_texts(project))
        missing = coverage.uncovered(names, p.coverage, mentions, exact=p.coverage_job.exact)
        outcomes.append(coverage.outcome(p.coverage, missing, project.config.path))

    if parse_tests and project.config.tests is not None:
        parsed = answer.get("parse") or {"problems": []}
        python = python_test_files(project)
        found: list[dict[str, object]] = [*parsed["problems"], *python_problems(python)]
        outcomes.append(_parse_outcome(found, len(p.test_files) + len(python)))
    return Collected(outcomes, names)


def _answer(request: HelperRequest | None, answer: Mapping[str, Any]) -> Mapping[str, Any] | None:
    return answer[request.name] if request is not None else None


def coverage_names(project: Project, warn: Callable[[str], None]) -> list[str] | None:
    """The API names coverage reads, or None when coverage is off (the hint-word check uses them)."""
    p = prepare(project, warn)
    if p.coverage_job is None:
        return None
    only = p._replace(typecheck_job=None, test_files=())  # the helper need not typecheck for this
    return p.coverage_job.names(project, _answer(p.coverage_job.helper, _helper(only)))


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
