"""The process runner against the attacks where it promises something: secrets stay out of the
environment, endless code is killed with everything it started, output floods and exits fail only
that answer. It is not a sandbox (files and the network are open to the code), so those are not
tested here."""

from __future__ import annotations

import os
import secrets
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.codetests.conftest import CONTAINED, PROBE_TEST, CodeProject, Driver, ts

from skill_be.codetests.session import TestRun

CANARY_ENV = "SKILL_BE_TEST_CANARY"


class Runner:
    def __init__(self, drive: Driver, session: object, root: Path) -> None:
        self.drive = drive
        self.session = session
        self.root = root

    def run(self, code: str) -> TestRun:
        return self.drive(self.session.run("probe", "probe", ts(code)))  # type: ignore[attr-defined]

    def next_answer_is_unaffected(self) -> None:
        run = self.drive(self.session.run("probe", "probe", CONTAINED))  # type: ignore[attr-defined]
        assert run.error is None, run.error
        assert [(r.passed, r.message) for r in run.results] == [(True, None), (True, None)]


def open_runner(root: Path, weaken: frozenset[str] = frozenset()) -> Iterator[Runner]:
    os.environ[CANARY_ENV] = f"canary-{secrets.token_hex(8)}"
    project = CodeProject(root / "proj")
    project.scenarios({"probe": PROBE_TEST})
    config = project.save_config({"sandbox": "process", "testTimeoutSeconds": 2, "answerTimeoutSeconds": 8}, 1)
    drive = Driver()
    session = drive.open(config, weaken=weaken)
    # A folder the answer's user can write in: the test's own temp folder is closed to other users.
    shared = Path(tempfile.mkdtemp(prefix="skill-be-shared-"))
    shared.chmod(0o1777)
    try:
        yield Runner(drive, session, shared)
    finally:
        drive(session.close())
        drive.close()
        del os.environ[CANARY_ENV]
        for p in shared.iterdir():
            p.unlink()
        shared.rmdir()


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runner]:
    yield from open_runner(tmp_path_factory.mktemp("process"))


@pytest.fixture(scope="module")
def same_uid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runner]:
    """The control: the answers run as skill-be's own user, as they did before."""
    yield from open_runner(tmp_path_factory.mktemp("same-uid"), frozenset({"uid"}))


def test_as_root_the_code_runs_under_a_uid_of_its_own(runner: Runner) -> None:
    code = """export const result = () => {
  const uid = process.getuid(), gid = process.getgid(), groups = process.getgroups();
  const ok = uid !== 0 && uid !== 65534 && gid === uid && groups.every((g) => g === gid);
  return ok ? 'contained' : `uid ${uid} gid ${gid} groups ${groups}`;
};"""
    run = runner.run(code)
    assert (run.results[0].passed, run.results[0].message) == (True, None)


def test_a_detached_process_dies_with_the_answer(runner: Runner) -> None:
    marker = runner.root / f"detached-{secrets.token_hex(4)}"
    code = f"""import {{ spawn }} from 'node:child_process';
export const result = () => {{
  spawn('setsid', ['sh', '-c', 'while :; do touch {marker}; sleep 0.05; done'], {{ stdio: 'ignore', detached: true }}).unref();
  return 'contained';
}};"""
    run = runner.run(code)
    assert run.results[0].passed, run.results[0].message
    time.sleep(0.3)
    if marker.exists():
        marker.unlink()
    time.sleep(0.5)
    assert not marker.exists()
    runner.next_answer_is_unaffected()


def test_skill_be_s_secrets_are_not_in_the_code_s_environment(runner: Runner) -> None:
    code = """export const result = () => {
  const env = JSON.stringify(process.env);
  return env.includes('canary-') ? 'LEAK: ' + env : 'contained';
};"""
    run = runner.run(code)
    assert run.results[0].passed, run.results[0].message
    runner.next_answer_is_unaffected()


def test_the_code_gets_only_path_home_and_tmpdir(runner: Runner) -> None:
    code = """export const result = () => {
  const keys = Object.keys(process.env).filter((k) => !['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL'].includes(k));
  return keys.length ? 'LEAK: ' + keys.join(',') : 'contained';
};"""
    run = runner.run(code)
    assert run.results[0].passed, run.results[0].message


def test_an_endless_loop_is_killed_with_the_processes_it_started(runner: Runner) -> None:
    # Root's file, writable by all: what the answer leaves in shared folders is swept, this is not.
    marker = runner.root / f"alive-{secrets.token_hex(4)}"
    marker.touch()
    marker.chmod(0o666)
    code = f"""import {{ spawn }} from 'node:child_process';
export const result = () => {{
  spawn('sh', ['-c', 'while :; do echo x >>{marker}; sleep 0.05; done'], {{ stdio: 'ignore' }});
  for (;;) {{}}
}};"""
    run = runner.run(code)
    assert [(r.passed, r.message) for r in run.results] == [
        (False, "timed out after 2 s"),
        (False, "not run: an earlier test timed out and the test process was stopped"),
    ]
    assert marker.stat().st_size > 0  # the child did run
    marker.write_text("")
    time.sleep(0.5)
    assert marker.stat().st_size == 0  # and was killed with the runner's process group
    runner.next_answer_is_unaffected()


def test_a_promise_that_never_resolves_times_out(runner: Runner) -> None:
    run = runner.run("export const result = () => new Promise(() => {});")
    assert [(r.passed, r.message) for r in run.results] == [(False, "timed out after 2 s"), (True, None)]
    runner.next_answer_is_unaffected()


def test_printing_100_mb_does_not_stop_the_tests(runner: Runner) -> None:
    code = """export const result = () => {
  const chunk = 'x'.repeat(1 << 20) + '\\n';
  for (let i = 0; i < 100; i++) process.stdout.write(chunk);
  return 'contained';
};"""
    run = runner.run(code)
    assert [(r.passed, r.message) for r in run.results] == [(True, None), (True, None)]
    runner.next_answer_is_unaffected()


def test_process_exit_fails_the_test_and_nothing_else(runner: Runner) -> None:
    run = runner.run("export const result = () => process.exit(3);")
    assert [(r.passed, r.message) for r in run.results] == [
        (False, "the test process ended during this test (exit code 3)"),
        (False, "not run: the test process ended during an earlier test (exit code 3)"),
    ]
    runner.next_answer_is_unaffected()
