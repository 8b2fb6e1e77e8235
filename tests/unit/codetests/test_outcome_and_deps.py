from __future__ import annotations

import io
import tarfile
from pathlib import Path

from skill_be.codetests.deps import folder_name, remove_folder
from skill_be.codetests.harness import compiled_name
from skill_be.codetests.outcome import TestResult, TestRun, errored


def test_tests_json_shape() -> None:
    run = TestRun(results=(TestResult("a", True, None, 0.0123), TestResult("b", False, "boom", 1.0)))
    assert run.to_json() == {
        "passed": 1,
        "total": 2,
        "error": None,
        "tests": [
            {"name": "a", "passed": True, "message": None, "seconds": 0.012},
            {"name": "b", "passed": False, "message": "boom", "seconds": 1.0},
        ],
    }


def test_an_error_fails_every_test() -> None:
    run = errored(("a", "b"), "the sandbox could not start")
    assert run.error == "the sandbox could not start"
    assert [(r.passed, r.message) for r in run.results] == [(False, "not run: the sandbox could not start")] * 2


def test_one_folder_per_distinct_list_of_entries() -> None:
    assert folder_name(("a@1",)) == folder_name(("a@1",))
    assert folder_name(("a@1",)) != folder_name(("a@2",))
    assert len(folder_name(())) == 16


def test_a_folder_that_cannot_be_removed_is_a_warning(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    lines: list[str] = []
    remove_folder(not_a_folder, lines.append)
    assert len(lines) == 1 and lines[0].startswith(f"warning: could not remove {not_a_folder.as_posix()} (")
    remove_folder(tmp_path / "missing", lines.append)
    assert len(lines) == 1


def test_typescript_sources_compile_to_the_js_paths_they_are_imported_by() -> None:
    assert compiled_name(Path("signup/fakes.ts")) == Path("signup/fakes.js")
    assert compiled_name(Path("signup/new.test.ts")) == Path("signup/new.test.js")
    assert compiled_name(Path("x.mts")) == Path("x.mjs")
    assert compiled_name(Path("types.d.ts")) == Path("types.d.ts")
    assert compiled_name(Path("data.json")) == Path("data.json")


def test_the_docker_payload_is_root_owned_except_runs(tmp_path: Path) -> None:
    from skill_be.codetests.harness import write_work_folder
    from skill_be.codetests.sandbox import Work
    from skill_be.codetests.sandbox.docker import build_payload

    work = tmp_path / "deps" / "run-x"
    write_work_folder(work)
    (work / "tests" / "s").mkdir(parents=True)
    (work / "tests" / "s" / "a.test.js").write_text("export {};\n")
    pkgs = tmp_path / "deps" / "node_modules"
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "index.js").write_text("export const x = 1;\n")
    pkgs.mkdir()
    (pkgs / "lib").symlink_to(tmp_path / "lib")  # npm links local folders
    data, size = build_payload((Work(key="p0", folder=work, packages=pkgs),))
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        members = {m.name: m for m in tf.getmembers()}
    assert members["h/runner.mjs"].uid == 0 and members["h/runner.mjs"].mode == 0o644
    assert members["b/p0/node_modules/lib/index.js"].isreg()
    assert members["b/p0/w/tests/s/a.test.js"].uid == 0
    assert members["b/p0/w/node_modules/skill-be/testing.js"].isreg()
    assert members["b/p0/w/node_modules/@ngwes/skill-be/testing.js"].isreg()
    runs = members["b/p0/w/runs"]
    assert runs.isdir() and runs.uid == 65534 and runs.mode == 0o700
    assert all(m.uid == 0 for name, m in members.items() if name != "b/p0/w/runs")
    assert size > 0
