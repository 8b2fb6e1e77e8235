"""What stops `run` before the first model call: test files that cannot load, bad package lists,
failed installs. And the package installs themselves: once per list, reused with --keep-deps."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.integration.codetests.conftest import PROBE_TEST, CodeProject, Driver, ts

from skill_be.codetests.deps import MARKER
from skill_be.codetests.sandbox.process import NOTE, NOTE_ROOT
from skill_be.errors import ConfigError

USES_LIB = """\
import assert from 'node:assert/strict';
import { test } from 'skill-be/testing';
import { double } from 'tiny-lib';

test('doubles like tiny-lib', ({ result }) => {
  assert.equal(result(4), double(4));
});
"""


def open_error(project: CodeProject, drive: Driver, tests: str) -> str:
    project.scenarios({"probe": tests})
    with pytest.raises(ConfigError) as info:
        drive.open(project.save_config({"sandbox": "process"}))
    return str(info.value)


def test_a_test_file_that_throws_when_loaded_stops_the_run(project: CodeProject, drive: Driver) -> None:
    message = open_error(project, drive, "throw new Error('bad fixture');\n")
    assert message == (
        "skill-tests/probe/probe.test.ts: throws when loaded: bad fixture; a test file must load without error "
        "and register its tests with test(name, fn) from skill-be/testing"
    )


def test_a_test_file_that_registers_no_test_stops_the_run(project: CodeProject, drive: Driver) -> None:
    message = open_error(project, drive, "import { test } from 'skill-be/testing';\nvoid test;\n")
    assert message.startswith("skill-tests/probe/probe.test.ts: registers no test; ")


def test_a_test_name_used_twice_stops_the_run(project: CodeProject, drive: Driver) -> None:
    tests = "import { test } from 'skill-be/testing';\ntest('same', () => {});\ntest('same', () => {});\n"
    message = open_error(project, drive, tests)
    assert 'test "same" is registered twice in this file' in message


def test_a_test_file_that_does_not_parse_names_its_line(project: CodeProject, drive: Driver) -> None:
    message = open_error(project, drive, "import { test } from 'skill-be/testing';\ntest('x', () => {;\n")
    assert message == (
        "skill-tests/probe/probe.test.ts: line 3, column 1: '}' expected; fix the syntax so the code tests can run"
    )


def test_the_work_folder_is_removed_after_a_failed_open(project: CodeProject, drive: Driver) -> None:
    open_error(project, drive, "throw new Error('x');\n")
    deps = project.root / ".skill-be" / "deps"
    assert not deps.exists() or list(deps.iterdir()) == []


def write_lib(project: CodeProject) -> None:
    project.write(
        "lib/tiny-lib/package.json",
        json.dumps({"name": "tiny-lib", "version": "1.0.0", "type": "module", "main": "index.js"}),
    )
    project.write("lib/tiny-lib/index.js", "export const double = (n) => n * 2;\n")
    project.write("test-packages.json", json.dumps({"npm": ["./lib/tiny-lib"]}))


def test_a_package_list_is_installed_and_both_tests_and_answers_import_from_it(
    project: CodeProject, drive: Driver
) -> None:
    write_lib(project)
    project.write(".npmrc", "fund=false\n")
    project.scenarios({"probe": USES_LIB})
    session = drive.open(project.save_config({"sandbox": "process"}))
    try:
        installed = [w for w in drive.warnings if w.startswith("installed the test packages of ")]
        assert len(installed) == 1
        folder = project.root / installed[0].rsplit(" in ", 1)[1]
        assert (
            installed[0] == f"installed the test packages of test-packages.json in {installed[0].rsplit(' in ', 1)[1]}"
        )
        assert (folder / MARKER).is_file() and (folder / ".npmrc").read_text() == "fund=false\n"
        code = "import { double } from 'tiny-lib';\nexport const result = (n: number) => double(n);"
        run = drive(session.run("probe", "probe", ts(code)))
        assert run.error is None and [r.passed for r in run.results] == [True]
    finally:
        drive(session.close())
    assert not folder.exists()


def test_keep_deps_keeps_the_folder_and_the_next_session_reuses_it(project: CodeProject, drive: Driver) -> None:
    write_lib(project)
    project.scenarios({"probe": USES_LIB})
    config = project.save_config({"sandbox": "process"})
    first = drive.open(config, keep_deps=True)
    drive(first.close())
    (folder_line,) = [w for w in drive.warnings if w.startswith("installed the test packages")]
    folder = project.root / folder_line.rsplit(" in ", 1)[1]
    assert folder.is_dir() and (folder / "node_modules" / "tiny-lib").exists()
    assert not any(p.name.startswith("run-") for p in folder.iterdir())
    drive.warnings.clear()
    second = drive.open(config, keep_deps=False)
    drive(second.close())
    assert [w for w in drive.warnings if not w.startswith(("note: ", "code tests: "))] == [
        f"reused the test packages of test-packages.json in {folder_line.rsplit(' in ', 1)[1]}"
    ]
    assert not folder.exists()


def test_a_changed_list_installs_again(project: CodeProject, drive: Driver) -> None:
    write_lib(project)
    project.scenarios({"probe": USES_LIB})
    config = project.save_config({"sandbox": "process"})
    drive(drive.open(config, keep_deps=True).close())
    project.write("lib/other/package.json", json.dumps({"name": "other", "version": "1.0.0"}))
    project.write("test-packages.json", json.dumps({"npm": ["./lib/tiny-lib", "./lib/other"]}))
    drive.warnings.clear()
    drive(drive.open(config, keep_deps=False).close())
    lines = [w.split(" in ")[0] for w in drive.warnings if not w.startswith(("note: ", "code tests: "))]
    assert lines == ["installed the test packages of test-packages.json"]


def test_a_failed_install_stops_the_run_and_its_folder_is_removed(project: CodeProject, drive: Driver) -> None:
    project.write("test-packages.json", json.dumps({"npm": ["./lib/missing-package"]}))
    project.scenarios({"probe": PROBE_TEST})
    with pytest.raises(ConfigError) as info:
        drive.open(project.save_config({"sandbox": "process"}))
    assert str(info.value).startswith("test-packages.json: npm install of its test packages failed in .skill-be/deps/")
    assert list((project.root / ".skill-be" / "deps").iterdir()) == []


def test_a_list_without_packages_prints_nothing(project: CodeProject, drive: Driver) -> None:
    project.write("test-packages.json", json.dumps({"npm": []}))
    project.scenarios({"probe": PROBE_TEST})
    drive(drive.open(project.save_config({"sandbox": "process"})).close())
    assert [w for w in drive.warnings if not w.startswith(("note: ", "code tests: "))] == []


def test_the_process_runner_prints_its_note(project: CodeProject, drive: Driver) -> None:
    project.scenarios({"probe": PROBE_TEST})
    drive(drive.open(project.save_config({"sandbox": "process"})).close())
    notes = [w for w in drive.warnings if w.startswith("note: ")]
    # What it keeps depends on who runs it: as root the answers get a uid of their own.
    assert notes == [NOTE_ROOT if os.geteuid() == 0 else NOTE]
    assert drive.warnings[-1] == "code tests: the model's code runs in the process sandbox"


def test_describe_names_the_sandbox(project: CodeProject, drive: Driver, tmp_path: Path) -> None:
    project.scenarios({"probe": PROBE_TEST})
    session = drive.open(project.save_config({"sandbox": "process"}))
    try:
        info = dict(session.describe())
        assert info["sandbox"] == "process"
        assert str(info["typescript"]).split(".")[0] in ("5", "6")
    finally:
        drive(session.close())
