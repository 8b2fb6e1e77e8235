"""The check kinds behind one interface: the name table, typed jobs, one Node helper request set,
and a new kind added with one module and one table line. No Node here (tests/integration/checks
runs the kinds for real)."""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from skill_be.checks import Problem, kinds
from skill_be.checks import runner as checks_runner
from skill_be.checks.kinds import KINDS, HelperRequest, kind
from skill_be.checks.plan import TypecheckPlan
from skill_be.project.loader import Project, load_project

SKILL = """---
name: demo
description: d
---
# Demo

```ts
const a: number = 1;
```

```ts skip
broken(
```

```python
x = 1
```
"""


def make(tmp_path: Path, checks: str) -> Project:
    root = tmp_path / "proj"
    (root / "skills" / "demo").mkdir(parents=True)
    (root / "skills" / "demo" / "SKILL.md").write_text(SKILL)
    (root / "evals").mkdir()
    scenario = {"id": "one", "prompt": "Do it.", "criteria": ["Does it"]}
    (root / "evals" / "demo.json").write_text(json.dumps({"skill": "demo", "scenarios": [scenario]}))
    (root / "lib").mkdir()
    (root / "lib" / "index.ts").write_text("export const a = 1;\n")
    (root / "api.py").write_text("def shown(): pass\n")
    entry = "  adapter: command\n  id: m\n  run: 'true'\n"
    config = f"skills: ./skills\nevals: ./evals\nmodel:\n{entry}grader:\n{entry}"
    (root / "skill-be.yaml").write_text(config + "checks:\n" + checks)
    return load_project(root / "skill-be.yaml")


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_kind_in_the_table_implements_the_interface(name: str) -> None:
    module = kind(name)
    for function in ("typecheck", "coverage"):
        params = list(inspect.signature(getattr(module, function)).parameters)
        assert params == ["project", "settings", "warn"], (name, function)


def test_the_typescript_typecheck_job_is_typed_and_sends_the_helper_its_payload(tmp_path: Path) -> None:
    project = make(tmp_path, "  typecheck:\n    library: ./lib/index.ts\n")
    job = kind("typescript").typecheck(project, project.config.checks.typecheck, print)  # type: ignore[arg-type]
    request = job.helper
    assert isinstance(request, HelperRequest) and request.name == "typecheck"
    payload = request.payload
    assert payload["root"] == str(project.config.root)
    assert payload["library"] == {
        "kind": "path",
        "name": "./lib/index.ts",
        "entry": str((project.config.root / "lib" / "index.ts").resolve()),
        "packageName": None,
    }
    [skill] = payload["skills"]  # type: ignore[misc]
    assert skill["name"] == "demo" and skill["prelude"] is None
    assert skill["blocks"] == [{"code": "const a: number = 1;", "line": 8}]  # skip and python left out
    json.dumps(payload)  # it goes to the helper as JSON


def test_problems_come_back_with_their_skill_md_line(tmp_path: Path) -> None:
    project = make(tmp_path, "  typecheck:\n    library: ./lib/index.ts\n")
    job = kind("typescript").typecheck(project, project.config.checks.typecheck, print)  # type: ignore[arg-type]
    warned: list[str] = []
    answer = {
        "problems": [{"skill": "demo", "file": "SKILL.md", "line": 8, "message": "error TS2322: no"}],
        "unparsed": [{"skill": "demo", "line": 12, "message": "')' expected"}],
    }
    [problem] = job.problems(project, answer, warned.append)
    assert problem == Problem("error TS2322: no", project.skills[0].skill_md, 8, "demo")
    assert warned and "SKILL.md line 12" in warned[0]


def test_python_and_command_kinds_need_no_node_helper(tmp_path: Path) -> None:
    project = make(
        tmp_path,
        f"  typecheck:\n    command: {sys.executable} -c pass\n  coverage:\n    preset: python\n    entry: ./api.py\n",
    )
    p = checks_runner.prepare(project, print)
    assert p.helper_requests() == [] and p.typescript is None
    assert p.coverage_job is not None and p.coverage_job.names(project, None) == ["shown"]
    assert p.typecheck_job is not None and p.typecheck_job.problems(project, None, print) == []


def test_typescript_jobs_and_the_test_parse_share_one_helper_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make(tmp_path, "  typecheck:\n    library: ./lib/index.ts\n  coverage:\n    entry: ./lib/index.ts\n")
    runs: list[Mapping[str, object]] = []

    def helper(ts: object, jobs: Mapping[str, object]) -> dict[str, Any]:
        runs.append(jobs)
        return {"typecheck": {"problems": []}, "coverage": {"names": ["a", "b"]}}

    import skill_be.checks.node_helper as node_helper
    import skill_be.checks.typescript as typescript

    monkeypatch.setattr(typescript, "find_typescript", lambda root, warn: "ts")
    monkeypatch.setattr(node_helper, "run_helper", helper)
    collected = checks_runner.collect(project, print)
    assert [sorted(jobs) for jobs in runs] == [["coverage", "typecheck"]]
    assert collected.coverage_names == ["a", "b"]
    assert collected.outcomes[1].lines == (
        "coverage: 1 API name(s) not mentioned in any SKILL.md or eval file, not blocking: b",
    )


def test_a_new_kind_is_one_module_and_one_table_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kind module registered in KINDS is what the runner uses, with no other change."""
    project = make(tmp_path, "  typecheck: false\n")
    fake = ModuleType("skill_be_test_fake_kind")

    class Job:
        helper = None

        def problems(self, project: Project, answer: object, warn: object) -> list[Problem]:
            return [Problem("the fake kind ran", project.skills[0].skill_md, 1, "demo")]

    fake.typecheck = lambda project, settings, warn: Job()  # type: ignore[attr-defined]
    fake.coverage = lambda project, settings, warn: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "skill_be_test_fake_kind", fake)
    monkeypatch.setattr(kinds, "KINDS", {**KINDS, "fake": "skill_be_test_fake_kind"})
    monkeypatch.setattr(checks_runner, "typecheck_plan", lambda config: TypecheckPlan("fake", True, None))
    collected = checks_runner.collect(project, print)
    assert collected.outcomes[0].lines == (
        "typecheck: 1 problem(s)",
        '  - skill "demo", SKILL.md line 1: the fake kind ran',
    )
    assert collected.outcomes[0].blocks
