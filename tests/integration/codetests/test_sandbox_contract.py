"""One contract for every sandbox (docker, bwrap, process as root): the OS side of issue 23.

Two kinds of attacker. A taken-over runner is played by a test file (test files run in the runner):
it reports its uid, looks for skill-be's secret in every /proc/<pid>/environ it can read, walks
the folders above it and the project for another scenario's test, and tries to rewrite its own
test file. An answer is played by answer code: it starts as many processes as it can, leaves files
and a System V segment for the next answer, reads the project's sources and a dotfile inside a
package of the package list. Each attack has a control: the same attack in a session with that one
protection switched off (`weaken`), where it works. Sessions are shared per (sandbox, weaken).
Every session here runs the runner without Node's permission model (`permission`): that layer alone
would stop the taken-over runner's reads and writes (test_runner_attacks.py proves it), and this suite
proves the OS layer on its own, as if an attack had got past the permission model too. Needs root, a Docker engine with the sandbox image and bwrap, as CI has."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.codetests.conftest import CodeProject, Driver, Listener, ts

from skill_be.codetests.protocol import REPORTED_TWICE
from skill_be.codetests.session import CodeTestSession, TestRun

CANARY_ENV = "SKILL_BE_CONTRACT_CANARY"
CANARY = f"canary-{secrets.token_hex(8)}"
OTHER_KEY = f"answer-key-{secrets.token_hex(8)}"
DOT_SECRET = f"dot-secret-{secrets.token_hex(8)}"
PIDS = 48
SANDBOXES = ("docker", "bwrap", "process")

# A taken-over runner: what it can see and do, as JSON in its failure message.
SPY_TEST = """\
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from '@ngwes/skill-be/testing';

const walk = (dir, depth, found, me) => {
  if (depth < 0 || found.length) return;
  let entries = [];
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, depth - 1, found, me);
    else if (e.isFile() && p !== me) {
      try { if (fs.readFileSync(p, 'utf8').includes(KEY)) found.push(p); } catch {}
    }
  }
};

test('spy', async ({ result }) => {
  const me = fileURLToPath(import.meta.url);
  const seen = { uid: process.getuid(), environ: [], other: [], project: [], answerUid: await result() };
  for (const p of fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p))) {
    try { if (fs.readFileSync(`/proc/${p}/environ`, 'latin1').includes(CANARY)) seen.environ.push(p); } catch {}
  }
  walk(path.resolve(me, '../../../../../..'), 9, seen.other, me);
  walk(PROJECT, 9, seen.project, me);
  const mark = ['//', 'tampered', 'by', 'the', 'spy'].join(' '); // not in this source as such
  seen.tampered = fs.readFileSync(me, 'utf8').includes(mark);
  try { fs.appendFileSync(me, `\\n${mark}\\n`); seen.write = 'written'; } catch (e) { seen.write = e.code; }
  throw new Error('SPY ' + JSON.stringify(seen));
});
"""
OTHER_TEST = f"""\
import {{ test }} from '@ngwes/skill-be/testing';
test('other', () => {{ if ('{OTHER_KEY}' === '') throw new Error(); }});
"""
ECHO_TEST = """\
import { test } from '@ngwes/skill-be/testing';
test('echo', async ({ result }) => { throw new Error('ECHO ' + JSON.stringify(await result())); });
"""
UID_ANSWER = "export const result = () => process.getuid();"
# A taken-over runner that tries the network: a TCP connection to a server on the host's loopback.
NET_TEST = """\
import net from 'node:net';
import { test } from '@ngwes/skill-be/testing';
test('net', async () => {
  const got = await new Promise((done) => {
    const s = net.connect(PORT, '127.0.0.1', () => { s.destroy(); done('connected'); });
    s.on('error', (e) => done(e.code));
    setTimeout(() => { s.destroy(); done('timeout'); }, 3000);
  });
  throw new Error('NET ' + JSON.stringify(got));
});
"""
# What the runner's realm leaves open once the test file has loaded (lockdown.mjs).
REALM_TEST = """\
import { test } from '@ngwes/skill-be/testing';
test('realm', () => {
  const seen = {
    species: Object.getOwnPropertyDescriptor(Buffer, Symbol.species).configurable,
    href: Object.getOwnPropertyDescriptor(URL.prototype, 'href').configurable,
    extensible: { globalThis, process, console, performance },
  };
  for (const [k, v] of Object.entries(seen.extensible)) seen.extensible[k] = Object.isExtensible(v);
  throw new Error('REALM ' + JSON.stringify(seen));
});
"""
# The EventEmitter chain (tests/node/attacks/): a wrong answer that took the runner over.
ATTACKS = Path(__file__).resolve().parents[2] / "node" / "attacks"
SUM_TEST = (ATTACKS / "sum.test-file.mjs").read_text(encoding="utf-8")
CHAIN = (ATTACKS / "emitter-chain.answer.mjs").read_text(encoding="utf-8")
THEN_POISON = (ATTACKS / "then-poison.answer.mjs").read_text(encoding="utf-8")
SUM_HONEST = """export const add = (a: number, b: number) => a + b;
export const result = add;
export const report = (events: any, a: number, b: number) => events.emit('sum', a + b);"""
# The runner's own layers that the chain got past (runner_flags.RUNNER_WEAKENINGS).
CHAIN_LAYERS = ("intrinsics", "receiver", "codegen", "registry")


class Contract:
    """One session of one sandbox, with some protections switched off."""

    def __init__(self, project: CodeProject, session: CodeTestSession, drive: Driver) -> None:
        self.project = project
        self.session = session
        self.drive = drive

    def run(self, scenario: str, code: str) -> TestRun:
        return self.drive(self.session.run("probe", scenario, ts(code)))

    def passed(self, scenario: str, code: str) -> list[bool]:
        run = self.run(scenario, code)
        assert run.error is None, run.error
        return [r.passed for r in run.results]

    def report(self, scenario: str, code: str, tag: str) -> Any:
        run = self.run(scenario, code)
        assert run.error is None, run.error
        message = run.results[0].message or ""
        assert message.startswith(tag + " "), message
        return json.loads(message[len(tag) + 1 :])


def make_project(root: Path, port: int) -> CodeProject:
    root.mkdir(parents=True)
    root.chmod(0o755)  # world-readable, as a project on a shared machine may be
    project = CodeProject(root / "proj")
    spy = SPY_TEST.replace("KEY", json.dumps(OTHER_KEY)).replace("CANARY", json.dumps(CANARY))
    spy = spy.replace("PROJECT", json.dumps(str(project.root)))
    scenarios = {"spy": spy, "other": OTHER_TEST, "echo": ECHO_TEST, "sum": SUM_TEST, "realm": REALM_TEST}
    project.scenarios({**scenarios, "net": NET_TEST.replace("PORT", str(port))})
    project.write("lib/dotpkg/package.json", json.dumps({"name": "dotpkg", "version": "1.0.0", "main": "index.js"}))
    project.write("lib/dotpkg/index.js", "module.exports = 1;\n")
    project.write("lib/dotpkg/.secret", DOT_SECRET)
    project.write("test-packages.json", json.dumps({"npm": ["./lib/dotpkg"]}))
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o755)
        for f in files:
            os.chmod(os.path.join(folder, f), 0o644)
    return project


class Sessions:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="skill-be-contract-"))
        self.root.chmod(0o755)
        self.open: dict[tuple[str, frozenset[str]], Contract] = {}
        self.drive = Driver()
        self.listener = Listener()  # on the host's loopback: no runner may reach it

    def get(self, kind: str, *weaken: str, permission: bool = False) -> Contract:
        # The OS layer alone, without Node's permission model, unless `permission`: see the docstring.
        key = (kind, frozenset(weaken) | (frozenset() if permission else {"permission"}))
        if key not in self.open:
            project = make_project(self.root / f"{kind}-{'-'.join(sorted(key[1])) or 'kept'}", self.listener.port)
            config = project.save_config(
                {"sandbox": kind, "testTimeoutSeconds": 5, "answerTimeoutSeconds": 20, "pids": PIDS}, concurrency=1
            )
            session = self.drive.open(config, weaken=key[1])
            self.open[key] = Contract(project, session, self.drive)
        return self.open[key]

    def close(self) -> None:
        self.listener.sock.close()
        for contract in self.open.values():
            self.drive(contract.session.close())
        self.drive.close()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def sessions() -> Iterator[Sessions]:
    assert os.geteuid() == 0, "the contract holds for the process runner as root; run the tests as root, as CI does"
    os.environ[CANARY_ENV] = CANARY  # in skill-be's own environment, before any session opens
    s = Sessions()
    try:
        yield s
    finally:
        s.close()
        del os.environ[CANARY_ENV]


def off(kind: str, *names: str) -> tuple[str, ...]:
    """The protections to switch off for a control: bwrap's namespaces too where the attack needs
    to see the host (bwrap's runner runs inside them)."""
    return (*names, "bwrap") if kind == "bwrap" else names


# --- a taken-over runner ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", SANDBOXES)
def test_the_runner_is_neither_root_nor_the_answer_and_reads_no_secret_nor_other_test(
    sessions: Sessions, kind: str
) -> None:
    seen = sessions.get(kind).report("spy", UID_ANSWER, "SPY")
    assert seen["uid"] != 0 and seen["uid"] != seen["answerUid"], seen
    assert seen["environ"] == [], seen
    assert seen["other"] == [], seen
    assert seen["write"] in ("EACCES", "EROFS"), seen
    # The process runner has no private view of the file system: a world-readable project's sources
    # are readable (its note says so; `auto` picks bwrap wherever bwrap works), but not the tests
    # compiled into it, which are root's.
    if kind == "process":
        assert seen["project"] and all("/skill-tests/" in p for p in seen["project"]), seen
    else:
        assert seen["project"] == [], seen


@pytest.mark.parametrize("kind", SANDBOXES)
def test_the_runner_runs_under_node_s_permission_model(sessions: Sessions, kind: str) -> None:
    # The other layer, in every sandbox: the spy's first read (/proc) is refused by Node. The control
    # is every other spy test above, where the same read works without the permission model.
    run = sessions.get(kind, permission=True).run("spy", UID_ANSWER)
    assert run.error is None, run.error
    assert "Access to this API has been restricted" in (run.results[0].message or ""), run.results[0].message


@pytest.mark.parametrize("kind", SANDBOXES)
def test_the_answer_s_test_file_is_fresh_for_every_answer(sessions: Sessions, kind: str) -> None:
    # Even a runner that may write its test file (as root) leaves nothing for the next answer.
    contract = sessions.get(kind, *off(kind, "runner-uid"))
    first = contract.report("spy", UID_ANSWER, "SPY")
    assert first["write"] == "written" and not first["tampered"], first
    second = contract.report("spy", UID_ANSWER, "SPY")
    assert not second["tampered"], second


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_a_runner_as_root_is_root_and_writes_its_test(sessions: Sessions, kind: str) -> None:
    seen = sessions.get(kind, *off(kind, "runner-uid")).report("spy", UID_ANSWER, "SPY")
    assert seen["uid"] == 0 and seen["write"] == "written", seen
    if kind != "docker":  # skill-be's environment never enters the container, whoever runs there
        assert seen["environ"], seen


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_with_every_test_file_given_the_runner_finds_the_other_scenario_s(
    sessions: Sessions, kind: str
) -> None:
    seen = sessions.get(kind, "test-files").report("spy", UID_ANSWER, "SPY")
    assert seen["other"], seen


# --- the answer -----------------------------------------------------------------------------------

SPAWN = """import { spawn } from 'node:child_process';
export const result = async () => {
  let started = 0;
  for (let i = 0; i < 120; i++) {
    const ok = await new Promise((done) => {
      const c = spawn('sleep', ['4'], { stdio: 'ignore', detached: true });
      c.on('spawn', () => done(true));
      c.on('error', () => done(false));
    });
    if (ok) started++;
  }
  return started;
};"""


@pytest.mark.parametrize("kind", SANDBOXES)
def test_the_process_limit_holds(sessions: Sessions, kind: str) -> None:
    started = sessions.get(kind).report("echo", SPAWN, "ECHO")
    assert started < PIDS, started


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_without_the_limit_every_process_starts(sessions: Sessions, kind: str) -> None:
    assert sessions.get(kind, "limits").report("echo", SPAWN, "ECHO") == 120


def leave(mark: str) -> str:
    """Answer code that leaves a file in /run/lock, /dev/shm and the world-writable folder `open`
    (another user's), and a System V shared-memory segment; it returns what it managed."""
    return f"""import fs from 'node:fs';
import {{ execFileSync }} from 'node:child_process';
export const result = () => {{
  const left = [];
  for (const p of ['/run/lock/{mark}', '/dev/shm/{mark}', 'OPEN/{mark}']) {{
    try {{ fs.writeFileSync(p, 'x'); left.push(p); }} catch {{}}
  }}
  try {{ execFileSync('ipcmk', ['-M', '4096', '-p', '0600'], {{ stdio: 'ignore' }}); left.push('shm'); }} catch {{}}
  return {{ left, uid: process.getuid() }};
}};"""


def find(mark: str, uid: int) -> str:
    return f"""import fs from 'node:fs';
export const result = () => {{
  const found = ['/run/lock/{mark}', '/dev/shm/{mark}', 'OPEN/{mark}'].filter((p) => fs.existsSync(p));
  let shm = '';
  try {{ shm = fs.readFileSync('/proc/sysvipc/shm', 'utf8'); }} catch {{}}
  const uid = '{uid}';  // the last answer's
  const mine = shm.split('\\n').slice(1).filter((l) => l.trim().split(/\\s+/)[7] === uid);
  if (mine.length) found.push('shm');
  return found;
}};"""


@pytest.fixture(scope="module")
def open_folder() -> Iterator[Path]:
    """A world-writable folder of another user under /tmp, as other people's tools leave them."""
    folder = Path(tempfile.mkdtemp(prefix="skill-be-contract-open-", dir="/tmp"))
    os.chown(folder, 65534, 65534)
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def leftovers(contract: Contract, open_folder: Path) -> tuple[list[str], list[str]]:
    mark = f"left-{secrets.token_hex(4)}"
    left = contract.report("echo", leave(mark).replace("OPEN", str(open_folder)), "ECHO")
    found = contract.report("echo", find(mark, left["uid"]).replace("OPEN", str(open_folder)), "ECHO")
    return left["left"], found


@pytest.mark.parametrize("kind", SANDBOXES)
def test_nothing_left_in_shared_places_or_ipc_reaches_the_next_answer(
    sessions: Sessions, kind: str, open_folder: Path
) -> None:
    left, found = leftovers(sessions.get(kind), open_folder)
    assert found == [], (left, found)
    if kind == "process":  # the attack itself succeeds here: only the sweep stops it
        assert len(left) == 4 and left[0].startswith("/run/lock/") and "shm" in left, left


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_without_the_sweep_the_next_answer_finds_what_was_left(
    sessions: Sessions, kind: str, open_folder: Path
) -> None:
    names = {"docker": ("sweep", "seccomp"), "bwrap": ("sweep", "bwrap"), "process": ("sweep",)}[kind]
    left, found = leftovers(sessions.get(kind, *names), open_folder)
    assert found and "shm" in found, (left, found)
    if kind != "docker":  # Docker's root is read-only: /run/lock cannot be written in any case
        assert any(p.startswith("/run/lock/") for p in found), found


READ_PROJECT = """import fs from 'node:fs';
export const result = () => {
  try { return fs.readFileSync(FILE, 'utf8').includes(KEY) ? 'read' : 'other'; } catch (e) { return e.code; }
};"""


@pytest.mark.parametrize("kind", SANDBOXES)
def test_the_project_s_sources(sessions: Sessions, kind: str) -> None:
    contract = sessions.get(kind)
    source = contract.project.root / "skill-tests/probe/other.test.ts"
    code = READ_PROJECT.replace("FILE", json.dumps(str(source))).replace("KEY", json.dumps(OTHER_KEY))
    outcome = contract.report("echo", code, "ECHO")
    # The process runner has no private view of the file system: a world-readable project is
    # readable (its note says so, and `auto` picks bwrap wherever bwrap works).
    assert outcome == ("read" if kind == "process" else "ENOENT")


def test_control_without_bwrap_s_namespaces_the_project_is_readable(sessions: Sessions) -> None:
    contract = sessions.get("bwrap", "bwrap")
    source = contract.project.root / "skill-tests/probe/other.test.ts"
    code = READ_PROJECT.replace("FILE", json.dumps(str(source))).replace("KEY", json.dumps(OTHER_KEY))
    assert contract.report("echo", code, "ECHO") == "read"


READ_DOTFILE = """import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
export const result = () => {
  const folder = path.dirname(createRequire(import.meta.url).resolve('dotpkg'));
  try { return fs.readFileSync(path.join(folder, '.secret'), 'utf8'); } catch (e) { return e.code; }
};"""


@pytest.mark.parametrize("kind", SANDBOXES)
def test_a_dotfile_inside_a_test_package_is_not_there(sessions: Sessions, kind: str) -> None:
    assert sessions.get(kind).report("echo", READ_DOTFILE, "ECHO") == "ENOENT"


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_with_dotfiles_kept_the_answer_reads_it(sessions: Sessions, kind: str) -> None:
    assert sessions.get(kind, "dotfiles").report("echo", READ_DOTFILE, "ECHO") == DOT_SECRET


FORBIDDEN_CALLS = """import { execFileSync } from 'node:child_process';
export const result = () => ['unshare -U true', 'ipcmk -Q'].filter((c) => {
  try { execFileSync('sh', ['-c', c], { stdio: 'ignore' }); return true; } catch { return false; }
});"""


@pytest.mark.parametrize("kind", ["docker", "bwrap"])
def test_the_seccomp_profile_refuses_namespaces_and_system_v_ipc(sessions: Sessions, kind: str) -> None:
    assert sessions.get(kind).report("echo", FORBIDDEN_CALLS, "ECHO") == []


def test_control_bwrap_without_the_profile_makes_both(sessions: Sessions) -> None:
    assert sessions.get("bwrap", "seccomp").report("echo", FORBIDDEN_CALLS, "ECHO") == ["unshare -U true", "ipcmk -Q"]


# --- the answer against the runner: the EventEmitter chain and what it used ----------------------


@pytest.mark.parametrize("kind", SANDBOXES)
def test_the_emitter_chain_fails_every_test_and_the_honest_answer_passes(sessions: Sessions, kind: str) -> None:
    contract = sessions.get(kind, permission=True)  # every protection on: the configuration users get
    run = contract.run("sum", CHAIN)
    assert [r.passed for r in run.results] == [False, False, False], [r.message for r in run.results]
    assert contract.passed("sum", SUM_HONEST) == [True, True, True]


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_with_the_layers_it_got_past_off_the_wrong_answer_passes_every_test(
    sessions: Sessions, kind: str
) -> None:
    # As the issue found it: built-ins by name, receivers open, code from strings, a live registry,
    # and skill-be keeping a test's last result; the frozen realm and Node's permission model on.
    contract = sessions.get(kind, *CHAIN_LAYERS, "one-result", permission=True)
    assert contract.passed("sum", CHAIN) == [True, True, True]


@pytest.mark.parametrize("kind", SANDBOXES)
def test_skill_be_alone_fails_every_test_a_taken_over_runner_reports_twice(sessions: Sessions, kind: str) -> None:
    # Every runner layer the chain got past is off: it registers each test again, and skill-be, which
    # keeps one result per test, fails each (the control above keeps the last one instead).
    run = sessions.get(kind, *CHAIN_LAYERS, permission=True).run("sum", CHAIN)
    assert [(r.passed, r.message) for r in run.results] == [(False, REPORTED_TWICE)] * 3


@pytest.mark.parametrize("kind", SANDBOXES)
def test_without_the_frozen_realm_the_answer_still_cannot_set_object_prototype_then(
    sessions: Sessions, kind: str
) -> None:
    # The answer names Object.prototype and Reflect.set across the membrane: each is its own.
    assert sessions.get(kind, "freeze").passed("sum", THEN_POISON) == [False, False, False]


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_with_its_built_ins_taken_as_the_runner_s_the_poisoned_then_forges_a_pass(
    sessions: Sessions, kind: str
) -> None:
    assert sessions.get(kind, "freeze", "intrinsics", "records").passed("sum", THEN_POISON) == [False, False, True]


@pytest.mark.parametrize("kind", SANDBOXES)
def test_the_runner_s_realm_fixes_node_s_accessors_and_seals_its_live_objects(sessions: Sessions, kind: str) -> None:
    seen = sessions.get(kind).report("realm", UID_ANSWER, "REALM")
    assert seen == {"species": False, "href": False, "extensible": dict.fromkeys(EXTENSIBLE, False)}, seen


EXTENSIBLE = ("globalThis", "process", "console", "performance")


@pytest.mark.parametrize("kind", SANDBOXES)
def test_control_without_lockdown_they_are_open(sessions: Sessions, kind: str) -> None:
    seen = sessions.get(kind, "freeze").report("realm", UID_ANSWER, "REALM")
    assert seen == {"species": True, "href": True, "extensible": dict.fromkeys(EXTENSIBLE, True)}, seen


@pytest.mark.parametrize("kind", SANDBOXES)
def test_a_taken_over_runner_reaches_no_address(sessions: Sessions, kind: str) -> None:
    before = sessions.listener.accepted
    got = sessions.get(kind).report("net", UID_ANSWER, "NET")
    assert got in ("ENETUNREACH", "ECONNREFUSED", "EHOSTUNREACH"), got
    assert sessions.listener.accepted == before


@pytest.mark.parametrize("kind", ["bwrap", "process"])
def test_control_a_runner_with_the_network_connects(sessions: Sessions, kind: str) -> None:
    # Docker has no control: its containers never have a network (network_mode none).
    before = sessions.listener.accepted
    assert sessions.get(kind, *off(kind, "runner-net")).report("net", UID_ANSWER, "NET") == "connected"
    assert sessions.listener.accepted > before
