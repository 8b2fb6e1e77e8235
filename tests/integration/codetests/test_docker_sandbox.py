"""The Docker sandbox against answers that attack it. Every answer of this module goes through ONE
session with ONE container (concurrency 1), so each attack is followed by an ordinary answer that
must still pass: nothing an answer does reaches the next one. At the end no container or volume of
the session is left. Needs a Docker engine and the sandbox image (.ci/steps/40-docker.sh)."""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker
import pytest
from tests.integration.codetests.conftest import CONTAINED, PROBE_TEST, CodeProject, Driver, Listener, ts

from skill_be.codetests.sandbox.docker import CAPABILITIES
from skill_be.codetests.session import CodeTestSession, TestRun

CANARY_ENV = "SKILL_BE_TEST_CANARY"


class Sandboxed:
    def __init__(self, drive: Driver, session: CodeTestSession, root: Path, canary: str) -> None:
        self.drive = drive
        self.session = session
        self.root = root
        self.canary = canary
        self.listener = Listener()

    def run(self, code: str) -> TestRun:
        return self.drive(self.session.run("probe", "probe", ts(code)))

    def next_answer_is_unaffected(self) -> None:
        run = self.drive(self.session.run("probe", "probe", CONTAINED))
        assert run.error is None, run.error
        assert [(r.name, r.passed, r.message) for r in run.results] == [("probe", True, None), ("after", True, None)]


def containers_of(run_id: str) -> tuple[list[Any], list[Any]]:
    client = docker.from_env()
    try:
        selector = {"label": f"skill-be.run={run_id}"}
        return client.containers.list(all=True, filters=selector), client.volumes.list(filters=selector)
    finally:
        client.close()


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandboxed]:
    yield from open_box(tmp_path_factory, frozenset())


def open_box(tmp_path_factory: pytest.TempPathFactory, weaken: frozenset[str]) -> Iterator[Sandboxed]:
    canary = f"canary-{secrets.token_hex(8)}"
    os.environ[CANARY_ENV] = canary  # in skill-be's own environment, before the session opens
    root = tmp_path_factory.mktemp("docker")
    project = CodeProject(root / "proj")
    project.scenarios({"probe": PROBE_TEST})
    (root / "canary.txt").write_text(canary, encoding="utf-8")
    config = project.save_config(
        {"sandbox": "docker", "testTimeoutSeconds": 2, "answerTimeoutSeconds": 8, "memoryMb": 256, "pids": 64},
        concurrency=1,
    )
    drive = Driver()
    cwd = os.getcwd()
    os.chdir(project.root)
    session = drive.open(config, weaken=weaken)
    try:
        yield Sandboxed(drive, session, root, canary)
    finally:
        drive(session.close())
        drive.close()
        os.chdir(cwd)
        os.environ.pop(CANARY_ENV, None)
    assert containers_of(session.run_id) == ([], [])


def probe(run: TestRun) -> tuple[bool, str]:
    assert run.error is None, run.error
    first = run.results[0]
    assert first.name == "probe"
    return first.passed, first.message or ""


def test_the_container_is_locked_down(box: Sandboxed) -> None:
    (container,), (volume,) = containers_of(box.session.run_id)
    host = container.attrs["HostConfig"]
    assert host["NetworkMode"] == "none"
    assert host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and sorted(host["CapAdd"]) == sorted(CAPABILITIES)
    assert host["SecurityOpt"][0] == "no-new-privileges"
    assert host["SecurityOpt"][1].startswith("seccomp=") and "io_uring_setup" not in host["SecurityOpt"][1]
    assert host["PidsLimit"] == 64
    assert host["Memory"] == 256 * 1024 * 1024 and host["MemorySwap"] == 256 * 1024 * 1024
    assert host["NanoCpus"] == 1_000_000_000
    assert host["Privileged"] is False
    assert not host.get("Binds")
    assert [(m["Type"], m["Destination"]) for m in container.attrs["Mounts"]] == [("volume", "/work")]
    assert container.attrs["Config"]["User"] == "0:0"  # PID 1, idle: the runner and the answers have uids of their own
    env = container.attrs["Config"]["Env"] or []
    assert not any(box.canary in e or e.startswith("DOCKER") for e in env)
    assert volume.attrs["Options"]["type"] == "tmpfs"
    assert container.labels["skill-be.run"] == box.session.run_id


def test_no_connection_to_a_server_on_the_host_loopback(box: Sandboxed) -> None:
    code = f"""import net from 'node:net';
export const result = () => new Promise((resolve, reject) => {{
  const s = net.connect({box.listener.port}, '127.0.0.1');
  s.on('connect', () => resolve('LEAK: connected'));
  s.on('error', reject);
}});"""
    passed, message = probe(box.run(code))
    assert not passed and "ECONNREFUSED" in message
    assert box.listener.accepted == 0
    box.next_answer_is_unaffected()


def test_no_connection_to_a_public_registry(box: Sandboxed) -> None:
    code = """import net from 'node:net';
export const result = () => new Promise((resolve, reject) => {
  const s = net.connect(443, 'registry.npmjs.org');
  s.on('connect', () => resolve('LEAK: connected'));
  s.on('error', reject);
});"""
    passed, message = probe(box.run(code))
    assert not passed
    assert any(code in message for code in ("EAI_AGAIN", "ENOTFOUND", "ENETUNREACH")), message
    box.next_answer_is_unaffected()


READ_ENVIRONMENTS = """import fs from 'node:fs';
export const result = () => {
  const seen = [JSON.stringify(process.env)];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\\d+$/.test(p)) continue;
    try { seen.push(fs.readFileSync(`/proc/${p}/environ`, 'latin1')); } catch {}
    try { seen.push(fs.readFileSync(`/proc/${p}/cmdline`, 'latin1')); } catch {}
  }
  const all = seen.join('\\n');
  return all.includes('canary-') || all.includes('SKILL_BE_TEST_CANARY') ? 'LEAK: ' + all.slice(0, 200) : 'contained';
};"""


def test_skill_be_s_environment_does_not_reach_the_code(box: Sandboxed) -> None:
    passed, message = probe(box.run(READ_ENVIRONMENTS))
    assert passed, message
    box.next_answer_is_unaffected()


# The controls: one protection off each (skill-be's environment given to the answer's start, a
# writable root, no kill of the last answer's processes before the next answer starts).
@pytest.fixture(scope="module")
def environ_box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandboxed]:
    yield from open_box(tmp_path_factory, frozenset({"environ"}))


@pytest.fixture(scope="module")
def writable_box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandboxed]:
    yield from open_box(tmp_path_factory, frozenset({"readonly"}))


@pytest.fixture(scope="module")
def unkilled_box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandboxed]:
    yield from open_box(tmp_path_factory, frozenset({"kill"}))


def test_control_given_skill_be_s_environment_the_code_finds_the_canary(environ_box: Sandboxed) -> None:
    passed, message = probe(environ_box.run(READ_ENVIRONMENTS))
    assert not passed and "LEAK: " in message, message


def test_a_file_outside_the_work_folder_cannot_be_read(box: Sandboxed) -> None:
    target = box.root / "canary.txt"
    code = f"""import fs from 'node:fs';
export const result = () => 'LEAK: ' + fs.readFileSync({str(target)!r}, 'utf8');"""
    passed, message = probe(box.run(code))
    assert not passed and "ENOENT" in message and box.canary not in message
    box.next_answer_is_unaffected()


WRITE_EVERYWHERE = """import fs from 'node:fs';
import path from 'node:path';
export const result = () => {
  const written = [];
  const targets = ['/tmp/x', '/etc/x', '/x', '/work/x', '/work/h/runner.mjs', '/work/h/evil.mjs'];
  for (const k of fs.readdirSync('/work/b')) {
    targets.push(`/work/b/${k}/w/tests/probe/probe.test.js`, `/work/b/${k}/w/node_modules/skill-be/testing.js`,
      `/work/b/${k}/w/package.json`, `/work/b/${k}/x`);
  }
  for (const t of targets) {
    try { fs.writeFileSync(t, 'tampered'); written.push(t); } catch {}
  }
  fs.writeFileSync(path.join(process.cwd(), 'mine.txt'), 'own folder is writable');
  return written.length ? 'LEAK: wrote ' + written.join(', ') : 'contained';
};"""


def test_nothing_outside_the_answer_s_own_folder_can_be_written(box: Sandboxed) -> None:
    passed, message = probe(box.run(WRITE_EVERYWHERE))
    assert passed, message
    box.next_answer_is_unaffected()


def test_control_with_a_writable_root_the_code_writes_tmp(writable_box: Sandboxed) -> None:
    passed, message = probe(writable_box.run(WRITE_EVERYWHERE))
    assert not passed and "LEAK: wrote /tmp/x" in message, message


def test_a_fork_bomb_stops_at_the_process_limit(box: Sandboxed) -> None:
    code = """import { spawn } from 'node:child_process';
export const result = async () => {
  for (let i = 0; i < 200; i++) {
    try { spawn('sh', ['-c', 'f() { f | f & }; f'], { stdio: 'ignore', detached: true }).on('error', () => {}); } catch {}
  }
  await new Promise((r) => setTimeout(r, 5000));
  return 'still here';
};"""
    passed, message = probe(box.run(code))
    # The answer's process survives its fork bombs (they fail at the limit) and waits: its test times
    # out. The control, every process starting without the limit, is test_sandbox_contract.py's
    # test_control_without_the_limit_every_process_starts[docker] (a bounded count, not a bomb).
    assert (passed, message) == (False, "timed out after 2 s")
    box.next_answer_is_unaffected()


def test_unbounded_memory_is_killed(box: Sandboxed) -> None:
    code = """export const result = () => {
  const keep = [];
  for (;;) keep.push(Buffer.alloc(16 << 20, 1));
};"""
    passed, message = probe(box.run(code))
    assert not passed
    assert message.startswith("the test process ended during this test (killed, exit code 13"), message
    box.next_answer_is_unaffected()


def test_an_endless_loop_times_out(box: Sandboxed) -> None:
    run = box.run("export const result = () => { for (;;) {} };")
    assert [(r.passed, r.message) for r in run.results] == [
        (False, "timed out after 2 s"),
        (False, "not run: an earlier test timed out and the test process was stopped"),
    ]
    box.next_answer_is_unaffected()


def test_a_promise_that_never_resolves_times_out(box: Sandboxed) -> None:
    run = box.run("export const result = () => new Promise(() => {});")
    assert [(r.passed, r.message) for r in run.results] == [(False, "timed out after 2 s"), (True, None)]
    box.next_answer_is_unaffected()


def test_printing_100_mb_does_not_stop_the_tests(box: Sandboxed) -> None:
    code = """export const result = () => {
  const chunk = 'x'.repeat(1 << 20) + '\\n';
  for (let i = 0; i < 100; i++) process.stdout.write(chunk);
  return 'contained';
};"""
    run = box.run(code)
    assert [(r.passed, r.message) for r in run.results] == [(True, None), (True, None)]
    box.next_answer_is_unaffected()


def test_process_exit_fails_the_test(box: Sandboxed) -> None:
    passed, message = probe(box.run("export const result = () => process.exit(0);"))
    assert not passed and message == "the test process ended during this test (exit code 0)"
    box.next_answer_is_unaffected()


def test_killing_its_parent_or_pid_1_reaches_neither_skill_be_nor_the_container(box: Sandboxed) -> None:
    code = """import fs from 'node:fs';
export const result = () => {
  const killed = [];
  for (const p of fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p))) {
    let uid = '';
    try { uid = fs.readFileSync(`/proc/${p}/status`, 'utf8').match(/Uid:\\s+(\\d+)/)[1]; } catch { continue; }
    if (Number(uid) === process.getuid()) continue;
    try { process.kill(Number(p), 'SIGKILL'); killed.push(`${p} (uid ${uid})`); } catch {}
  }
  return killed.length ? 'LEAK: killed ' + killed.join(', ') : 'contained';
};"""
    passed, message = probe(box.run(code))
    # PID 1 (root) and the runner (its own uid) are out of the answer's uid's reach.
    assert (passed, message) == (True, "")
    box.next_answer_is_unaffected()


def test_the_docker_socket_is_not_there(box: Sandboxed) -> None:
    code = """import net from 'node:net';
import fs from 'node:fs';
export const result = () => new Promise((resolve, reject) => {
  for (const p of ['/var/run/docker.sock', '/run/docker.sock']) if (fs.existsSync(p)) resolve('LEAK: ' + p);
  const s = net.connect('/var/run/docker.sock');
  s.on('connect', () => resolve('LEAK: connected'));
  s.on('error', reject);
});"""
    passed, message = probe(box.run(code))
    assert not passed and "ENOENT" in message
    box.next_answer_is_unaffected()


TAMPERER = """import { spawn } from 'node:child_process';
const code = `
  const fs = require('node:fs');
  const path = require('node:path');
  const me = process.pid;
  setTimeout(() => setInterval(() => {
    try {
      for (const k of fs.readdirSync('/work/b')) {
        const runs = path.join('/work/b', k, 'w', 'runs');
        for (const r of fs.readdirSync(runs)) {
          try { fs.writeFileSync(path.join(runs, r, 'answer.mjs'), "export const result = async () => 'TAMPERED';"); } catch {}
        }
      }
    } catch {}
    for (const p of fs.readdirSync('/proc')) {
      if (/^\\\\d+$/.test(p) && +p > me) { try { process.kill(+p, 'SIGKILL'); } catch {} }
    }
  }, 1), 200);
`;
export const result = async () => {
  spawn(process.execPath, ['-e', code], { detached: true, stdio: 'ignore' }).unref();
  return 'contained';
};"""


# The process left behind starts tampering 200 ms after its answer; an answer after it can finish
# sooner than that (the runner is started ahead). Both tests wait until it is surely at work, so the
# protection is tested against a live tamperer and the control cannot pass by timing.
TAMPERER_AT_WORK_S = 1.0


def test_a_background_process_left_behind_cannot_touch_the_next_answer(box: Sandboxed) -> None:
    passed, message = probe(box.run(TAMPERER))
    assert passed, message
    time.sleep(TAMPERER_AT_WORK_S)
    for _ in range(3):
        box.next_answer_is_unaffected()


def test_control_without_the_kill_the_process_left_behind_breaks_the_next_answer(unkilled_box: Sandboxed) -> None:
    passed, message = probe(unkilled_box.run(TAMPERER))
    assert passed, message
    time.sleep(TAMPERER_AT_WORK_S)
    run = unkilled_box.drive(unkilled_box.session.run("probe", "probe", CONTAINED))
    # Its answer file rewritten, or its process killed: either way not the honest answer's result.
    assert run.error is not None or not run.results[0].passed, run
