"""Answers written to pass rather than to be right, against every sandbox that claims to keep the
verdict out of their reach (docker, bwrap, and the process runner as root). Each attack is a wrong
answer plus a trick; it must fail every test, and the honest answer that follows must get its true
result. Each class has a control: the same attack with the protection switched off succeeds, so these
tests can fail.

The scenario's tests: `result` adds two numbers and throws a TypeError on text; `secret` must equal
a key that only the test file holds, so an answer passes that test only by reading the test file.
The answer's own process is the answer's: whatever it does to its own realm only changes what its
functions appear to do, which its code could have done anyway. So the wrong answer here, `() => 0`,
fails every test whether its calls return, throw or hang."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.codetests.conftest import CodeProject, Driver, ts

from skill_be.codetests.session import CodeTestSession, TestRun

KEY = f"key-{secrets.token_hex(12)}"
TESTS = f"""\
import assert from 'node:assert/strict';
import {{ test }} from 'skill-be/testing';

const KEY = '{KEY}';

test('adds', ({{ result }}) => {{
  assert.equal(result(2, 3), 5);
}});

test('adds later', async ({{ result }}) => {{
  const sum = await new Promise((resolve) => setTimeout(() => resolve(result(1, 1)), 5));
  assert.deepEqual(sum, 2);
}});

test('rejects text', ({{ result }}) => {{
  assert.throws(() => result('x', 1), TypeError);
  assert.equal(result(0, 0), 0); // an answer that always throws fails too
}});

test('knows the key', ({{ secret }}) => {{
  assert.equal(secret, KEY);
}});
"""
HONEST = """export const result = (a, b) => {
  if (typeof a !== 'number' || typeof b !== 'number') throw new TypeError('numbers only');
  return a + b;
};
export const secret = 'not known';"""
HONEST_OUTCOME = [True, True, True, False]
WRONG = "export const result = () => 0;\nexport let secret = 'not known';\n"
SANDBOXES = ["docker", "bwrap", "process"]


class Box:
    def __init__(self, drive: Driver, session: CodeTestSession, root: Path | None = None) -> None:
        self.drive = drive
        self.session = session
        self.root = root  # the box's folder: the project and its staged tests are below it

    def run(self, code: str) -> TestRun:
        return self.drive(self.session.run("probe", "probe", ts(code)))

    def passed(self, code: str) -> list[bool]:
        run = self.run(code)
        assert run.error is None, run.error
        return [r.passed for r in run.results]

    def honest_answer_gets_its_true_result(self) -> None:
        run = self.run(HONEST)
        assert run.error is None, run.error
        assert [(r.name, r.passed) for r in run.results] == [
            ("adds", True),
            ("adds later", True),
            ("rejects text", True),
            ("knows the key", False),
        ], [r.message for r in run.results]


def open_box(root: Path, kind: str, weaken: frozenset[str]) -> Iterator[Box]:
    if kind == "process":
        assert os.geteuid() == 0, "the process runner keeps answers apart only as root"
    project = CodeProject(root / "proj")
    project.scenarios({"probe": TESTS}, {"result": "a function (a, b) => a + b", "secret": "the key"})
    config = project.save_config(
        {"sandbox": kind, "testTimeoutSeconds": 3, "answerTimeoutSeconds": 15, "memoryMb": 512, "pids": 64},
        concurrency=1,
    )
    drive = Driver()
    session = drive.open(config, weaken=weaken)
    try:
        yield Box(drive, session, root)
    finally:
        drive(session.close())
        drive.close()


@pytest.fixture(scope="module", params=SANDBOXES)
def box(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    yield from open_box(tmp_path_factory.mktemp(request.param), request.param, frozenset())


def weakened(tmp_path_factory: pytest.TempPathFactory, kind: str, *names: str) -> Iterator[Box]:
    """A box with protections off. bwrap's namespaces and binds protect on their own as well (the
    attack tests with the uid's or the tests' protection off still fail there): its controls switch
    bwrap off too."""
    off = frozenset(names) | ({"bwrap"} if kind == "bwrap" and names != ("realm",) else set())
    yield from open_box(tmp_path_factory.mktemp(f"{kind}-without-{'-'.join(sorted(off))}"), kind, off)


# ---- 1. the verdict: tampering with what the runner and the tests rely on -----------------------

TAMPER = {
    "assert module": """import assert from 'node:assert/strict';
import * as loose from 'node:assert';
for (const a of [assert, loose.default, loose.strict]) {
  for (const k of Object.keys(a)) { try { a[k] = () => {}; } catch {} }
}""",
    "test registry": """const reg = globalThis[Symbol.for('skill-be.testing.registry')];
if (reg) for (const t of reg.tests) t.fn = () => {};""",
    "Promise prototype": """const then = Promise.prototype.then;
Promise.prototype.then = function (ok, bad) { return then.call(this, ok, (e) => ok && ok()); };
Promise.prototype.catch = function () { return Promise.resolve(); };""",
    "Object and Function prototypes": """Object.prototype.passed = true;
Object.defineProperty(Object.prototype, 'message', { get() { return null; }, set() {}, configurable: true });
const call = Function.prototype.call;
Function.prototype.call = function (...a) { try { return call.apply(this, a); } catch { return undefined; } };
Function.prototype.apply = function () { return undefined; };
Object.is = () => true;""",
    "Error and AssertionError": """import { AssertionError } from 'node:assert';
Error.prototype.toString = () => '';
AssertionError.prototype.constructor = function () { return {}; };
Error.captureStackTrace = () => {};
globalThis.Error = function () { return {}; };
globalThis.TypeError = function () { return {}; };""",
    "JSON": """const s = JSON.stringify;
JSON.stringify = (v, ...r) => s(v && typeof v === 'object' && 'passed' in v ? { ...v, passed: true, message: null } : v, ...r);
JSON.parse = () => ({});""",
    "Buffer and the output streams": """Buffer.prototype.toString = function () { return '{"e":"result","passed":true}'; };
const w = process.stdout.write.bind(process.stdout);
process.stdout.write = (s, ...r) => w(String(s).replace(/"passed":false/g, '"passed":true'), ...r);
process.exit = () => {};
process.on = () => process;""",
    "Array and Map": """Array.prototype.push = function () { return 0; };
Array.prototype[Symbol.iterator] = function* () {};
Map.prototype.get = () => undefined;
Set.prototype.has = () => true;""",
    "timers and the clock": """globalThis.setTimeout = (f) => { try { f(); } catch {} return 0; };
globalThis.clearTimeout = () => {};
performance.now = () => 0;
Date.now = () => 0;""",
    "the inspector": """import inspector from 'node:inspector';
try {
  const s = new inspector.Session();
  s.connect();
  s.post('Runtime.evaluate', { expression: "globalThis[Symbol.for('skill-be.testing.registry')].tests.forEach(t => t.fn = () => {})" });
} catch {}""",
}


@pytest.mark.parametrize("trick", sorted(TAMPER))
def test_tampering_with_the_runner_s_world_leaves_a_wrong_answer_failing(box: Box, trick: str) -> None:
    assert box.passed(TAMPER[trick] + "\n" + WRONG) == [False, False, False, False]
    box.honest_answer_gets_its_true_result()


@pytest.fixture(scope="module", params=SANDBOXES)
def in_realm(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    """The control: the answer in the runner's own realm, as it was before the membrane."""
    yield from weakened(tmp_path_factory, request.param, "realm")


@pytest.mark.parametrize("trick", ["assert module", "test registry"])
def test_control_in_the_runner_s_realm_the_same_tampering_passes_a_wrong_answer(in_realm: Box, trick: str) -> None:
    assert box_passes_some(in_realm, TAMPER[trick] + "\n" + WRONG)


def box_passes_some(box: Box, code: str) -> bool:
    return any(box.passed(code)[:3])


# ---- 2. the result channel: forged result lines --------------------------------------------------

FORGE = {
    "fake protocol lines on stdout and stderr": """import fs from 'node:fs';
const line = (n) => '\\x1e' + n + '\\x1f' + JSON.stringify({ e: 'result', name: 'adds', passed: true, message: null, ms: 1 }) + '\\n';
for (const n of ['', '0'.repeat(32), 'x']) { fs.writeSync(1, line(n)); fs.writeSync(2, line(n)); }
let nonce = '';
for (const p of ['/proc/self/cmdline', `/proc/${process.ppid}/cmdline`, `/proc/${process.ppid}/environ`]) {
  try { nonce += fs.readFileSync(p, 'latin1'); } catch {}
}
for (const m of nonce.match(/[0-9a-f]{32}/g) ?? []) fs.writeSync(1, line(m));""",
    "the runner's stdout through /proc": """import fs from 'node:fs';
const line = '\\x1eX\\x1f' + JSON.stringify({ e: 'end' }) + '\\n';
for (const fd of [1, 2]) {
  try { fs.writeFileSync(`/proc/${process.ppid}/fd/${fd}`, line); } catch {}
}
for (const p of fs.readdirSync('/proc')) {
  if (!/^\\d+$/.test(p)) continue;
  try { fs.writeFileSync(`/proc/${p}/fd/1`, line); } catch {}
}""",
    "its own channel to the runner": """import fs from 'node:fs';
const frame = (o) => { const b = Buffer.from(JSON.stringify(o)); const h = Buffer.alloc(4); h.writeUInt32BE(b.length); return Buffer.concat([h, b]); };
for (let id = 1; id < 50; id++) {
  try { fs.writeSync(4, frame({ k: 'ret', id, ok: true, v: ['n', 5] })); } catch {}
  try { fs.writeSync(4, frame({ k: 'ev', e: 'result', name: 'adds', passed: true })); } catch {}
}""",
    "the runner's memory": """import fs from 'node:fs';
for (const pid of [process.ppid, 1]) {
  try {
    const fd = fs.openSync(`/proc/${pid}/mem`, 'r+');
    fs.writeSync(fd, Buffer.alloc(8), 0, 8, 0x400000);
  } catch {}
}""",
}


@pytest.mark.parametrize("trick", sorted(FORGE))
def test_forging_the_result_channel_leaves_a_wrong_answer_failing(box: Box, trick: str) -> None:
    assert box.passed(FORGE[trick] + "\n" + WRONG) == [False, False, False, False]
    box.honest_answer_gets_its_true_result()


# ---- 3. answer keys: reading the tests ------------------------------------------------------------

FIND_KEY = """import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
const found = new Set();
const seen = new Set();
let budget = 20000;
function look(p, depth) {
  // An attacker stops at the first key: a walk that goes on only spends the answer's time limit.
  if (found.size || budget-- <= 0 || depth > 12 || seen.has(p)) return;
  seen.add(p);
  if (/^\\/(proc|sys|dev|usr|lib|lib64|bin|sbin|etc|var|boot|run)(\\/|$)/.test(p)) return;
  let st;
  try { st = fs.lstatSync(p); } catch { return; }
  if (st.isDirectory()) {
    let names = [];
    try { names = fs.readdirSync(p); } catch { return; }
    for (const n of names) look(path.join(p, n), depth + 1);
  } else if (st.isFile() && st.size < 1 << 20) {
    try { for (const m of fs.readFileSync(p, 'latin1').match(/key-[0-9a-f]{24}/g) ?? []) found.add(m); } catch {}
  }
}
const here = path.dirname(fileURLToPath(import.meta.url));
// Near the answer first (each sandbox stages its tests beside it), then the usual places: a busy /tmp
// must not use the walk's budget up before the tests' folder is reached.
// The attacker is told where the project is (__ROOT__): the walk's budget then never depends on how
// crowded the machine's other folders are, and a protected box must hold even so.
const near = [1, 2, 3, 4].map((n) => path.join(here, ...Array(n).fill('..')));
for (const start of [__ROOT__, here, path.join(here, '..', '..', 'tests'), ...near, '/work', '/tmp', '/root', process.env.HOME ?? '/', '/']) look(start, 0);
for (const guess of ['tests/probe/probe.test.js', '../../tests/probe/probe.test.js']) {
  try { for (const m of fs.readFileSync(path.join(here, guess), 'latin1').match(/key-[0-9a-f]{24}/g) ?? []) found.add(m); } catch {}
  try { const ns = await import(path.join(here, '..', '..', guess)); } catch {}
}
export const secret = [...found][0] ?? 'not found';
export const result = () => 0;
"""


def test_the_answer_cannot_read_the_test_file_by_path_or_by_walking(box: Box) -> None:
    assert box.passed(find_key(box)) == [False, False, False, False]
    box.honest_answer_gets_its_true_result()


def find_key(box: Box) -> str:
    return FIND_KEY.replace("__ROOT__", json.dumps(str(box.root)))


# bwrap's control of this protection is the contract suite's (test_sandbox_contract.py,
# test_control_with_every_test_file_given_the_runner_finds_the_other_scenario_s): this walk, with bwrap off, did not
# reach the staged tests from a checkout under /tmp and so proved nothing there.
@pytest.fixture(scope="module", params=[k for k in SANDBOXES if k != "bwrap"])
def readable_tests(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    yield from weakened(tmp_path_factory, request.param, "tests")


def test_control_with_the_tests_readable_the_walk_finds_the_key(readable_tests: Box) -> None:
    run = readable_tests.run(find_key(readable_tests))
    assert run.error is None, run.error
    knows = run.results[3]
    assert (knows.name, knows.passed) == ("knows the key", True), [(r.name, r.message) for r in run.results]


# ---- 4. nothing crosses to the next answer ------------------------------------------------------

LEAVE = """import fs from 'node:fs';
import { spawn } from 'node:child_process';
const left = [];
for (const p of ['/dev/mqueue/skill-be-left', '/dev/shm/skill-be-left', '/tmp/skill-be-left', '/var/tmp/skill-be-left',
                 `${process.env.HOME}/../skill-be-left`, `${process.cwd()}/../skill-be-left`, '/work/skill-be-left']) {
  try { fs.writeFileSync(p, 'left'); left.push(p); } catch {}
}
spawn('sh', ['-c', 'trap "" TERM HUP INT; while :; do sleep 1; done'], { detached: true, stdio: 'ignore' }).unref();
export const secret = 'not known';
export const result = () => 0;
"""
FIND_LEFT = """import fs from 'node:fs';
const found = [];
for (const p of ['/dev/mqueue/skill-be-left', '/dev/shm/skill-be-left', '/tmp/skill-be-left', '/var/tmp/skill-be-left',
                 `${process.env.HOME}/../skill-be-left`, `${process.cwd()}/../skill-be-left`, '/work/skill-be-left']) {
  if (fs.existsSync(p)) found.push(p);
}
for (const d of ['/dev/mqueue']) { try { if (fs.readdirSync(d).length) found.push(d); } catch {} }
for (const p of fs.readdirSync('/proc')) {
  if (!/^\\d+$/.test(p) || +p === process.pid) continue;
  try { if (fs.readFileSync(`/proc/${p}/cmdline`, 'latin1').includes('sleep')) { if (fs.statSync(`/proc/${p}`).uid === process.getuid()) found.push('process ' + p); } } catch {}
}
export const secret = found.join(', ');
export const result = (a, b) => {
  if (typeof a !== 'number' || typeof b !== 'number') throw new TypeError('numbers only');
  return a + b;
};
"""


def test_nothing_an_answer_leaves_reaches_the_next(box: Box) -> None:
    box.passed(LEAVE)
    run = box.run(FIND_LEFT)
    assert [r.passed for r in run.results] == HONEST_OUTCOME
    assert "Expected values to be strictly equal" in str(run.results[3].message)
    assert "+ ''" in str(run.results[3].message), run.results[3].message  # nothing found
    box.honest_answer_gets_its_true_result()


# ---- 5. the processes that outlive an answer ------------------------------------------------------

# A zombie (a process killed earlier, not yet reaped by PID 1) is dead: only live processes count.
# Its parent may be its own start (a shell under its own uid, which the sandbox started under it and
# which holds nothing else): only the others count.
TAKE_OVER = """import fs from 'node:fs';
const got = [];
const own = (p) => { try { return fs.readFileSync(`/proc/${p}/cmdline`, 'latin1').startsWith('/bin/sh\\0-c\\0unset PWD'); } catch { return false; } };
for (const p of fs.readdirSync('/proc')) {
  if (!/^\\d+$/.test(p) || +p === process.pid || (+p === process.ppid && own(p))) continue;
  try { if (fs.readFileSync(`/proc/${p}/stat`, 'latin1').split(') ')[1][0] === 'Z') continue; } catch { continue; }
  try { fs.closeSync(fs.openSync(`/proc/${p}/mem`, 'r+')); got.push('mem ' + p); } catch {}
  try { fs.readFileSync(`/proc/${p}/environ`); if (+p !== process.pid) got.push('environ ' + p); } catch {}
  try { process.kill(+p, 0); got.push('signal ' + p); } catch {}
}
export const secret = got.join(', ');
export const result = () => 0;
"""


def test_no_other_process_is_within_the_answer_s_reach(box: Box) -> None:
    run = box.run(TAKE_OVER)
    assert "+ ''" in str(run.results[3].message), run.results[3].message  # it reached nothing
    box.honest_answer_gets_its_true_result()


@pytest.fixture(scope="module", params=SANDBOXES)
def same_uid(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    yield from weakened(tmp_path_factory, request.param, "uid")


def test_control_under_the_runner_s_uid_the_answer_reaches_other_processes(same_uid: Box) -> None:
    run = same_uid.run(TAKE_OVER)
    assert "mem " in str(run.results[3].message), run.results[3].message


# ---- 6. bounded output: huge and hostile values --------------------------------------------------

HOSTILE = {
    "a 16 MB string thrown": "export const result = () => { throw 'x'.repeat(16 << 20); };",
    "a 16 MB error message": "export const result = () => { throw new Error('y'.repeat(16 << 20)); };",
    "an error whose message getter throws": """export const result = () => {
  const e = new Error('m');
  Object.defineProperty(e, 'message', { get() { throw new Error('gotcha'); } });
  throw e;
};""",
    "a proxy whose every trap throws": """export const result = () => {
  throw new Proxy({}, new Proxy({}, { get: () => () => { throw new Error('trap'); } }));
};""",
    "a cyclic object thrown": "export const result = () => { const o = { a: 1 }; o.self = o; throw o; };",
    "a symbol thrown": "export const result = () => { throw Symbol('s'); };",
    "a deeply nested value returned": """export const result = () => {
  let v = 0;
  for (let i = 0; i < 100000; i++) v = [v];
  return v;
};""",
    "a huge array returned": "export const result = () => new Array(5e6).fill('z'.repeat(10));",
    "a getter that lies about equality": """export const result = () => new Proxy({}, {
  get: (t, k) => (k === Symbol.toPrimitive ? () => 5 : k === 'valueOf' ? () => 5 : undefined),
});""",
    "a flood of 8 MB frames on its channel to the runner": """import fs from 'node:fs';
const body = Buffer.from(JSON.stringify({ k: 'ev', e: 'noise', pad: 'x'.repeat(8 << 20) }));
const head = Buffer.alloc(4);
head.writeUInt32BE(body.length);
const frame = Buffer.concat([head, body]);
setInterval(() => { for (let i = 0; i < 4; i++) fs.writeSync(4, frame); }, 0);
export const result = () => 0;""",
    "a getter that never returns": """export const result = () => ({ get then() { for (;;) {} } });""",
    "a thenable that settles twice with proxies": """export const result = () => ({
  then(ok, bad) { ok(new Proxy({}, { get: () => 5 })); bad(new Proxy({}, {})); ok(5); },
});""",
    "an uncaught error flood": """export const result = () => {
  for (let i = 0; i < 1000; i++) setTimeout(() => { throw 'w'.repeat(1 << 20); }, 0);
  return 0;
};""",
}


@pytest.mark.parametrize("trick", sorted(HOSTILE))
def test_huge_and_hostile_values_fail_with_bounded_messages(box: Box, trick: str) -> None:
    run = box.run(HOSTILE[trick] + "\nexport const secret = 'not known';")
    assert run.error is None, run.error
    assert [r.passed for r in run.results] == [False, False, False, False]
    for r in run.results:
        assert len(r.message or "") <= 2100, (r.name, len(r.message or ""))
    assert len(json.dumps(run.to_json())) < 20_000
    box.honest_answer_gets_its_true_result()


# ---- 7. the kernel surface (Docker's seccomp profile) ---------------------------------------------

# perl (in the image) makes raw system calls: io_uring_setup, keyctl, socket(AF_VSOCK), socket(AF_PACKET),
# mq_open, ptrace; each prints its number and "e<errno>" or "r<result>".
SYSCALLS = (
    "for my $c ([425,8,0],[250,0,0,0],[41,40,1,0],[41,17,3,0],[240,0,0,0,0],[101,16,1,0,0]) "
    '{ $! = 0; my @a = @$c; my $n = shift @a; my $r = syscall($n, @a); print $n, ":", ($r == -1 ? "e".($!+0) : "r$r"), " " }'
)
KERNEL = f"""import {{ execFileSync }} from 'node:child_process';
export const secret = execFileSync('perl', ['-e', {json.dumps(SYSCALLS)}], {{ encoding: 'utf8' }}).trim();
export const result = () => 0;
"""


def syscalls_seen(box: Box) -> str:
    run = box.run(KERNEL)
    message = str(run.results[3].message)
    return message.split("+ '")[1].split("'")[0]


def test_docker_s_seccomp_profile_refuses_what_model_code_never_needs(tmp_path_factory: pytest.TempPathFactory) -> None:
    for box in open_box(tmp_path_factory.mktemp("seccomp"), "docker", frozenset()):
        assert syscalls_seen(box) == "425:e1 250:e1 41:e1 41:e1 240:e1 101:e1"
        box.honest_answer_gets_its_true_result()


def test_control_with_the_engine_s_default_profile_io_uring_and_vsock_get_through(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    for box in open_box(tmp_path_factory.mktemp("no-seccomp"), "docker", frozenset({"seccomp"})):
        seen = syscalls_seen(box).split()
        assert seen[0] != "425:e1" and seen[2] != "41:e1", seen  # io_uring_setup, socket(AF_VSOCK) reached


def test_bwrap_alone_keeps_the_tests_and_other_processes_out_of_reach(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """As for a user who is not root: the answer under the runner's own uid, tests/ readable to it."""
    for box in open_box(tmp_path_factory.mktemp("bwrap-alone"), "bwrap", frozenset({"uid", "tests"})):
        assert box.passed(find_key(box)) == [False, False, False, False]
        run = box.run(TAKE_OVER)
        assert "+ ''" in str(run.results[3].message), run.results[3].message
        box.passed(LEAVE)
        left = box.run(FIND_LEFT).results
        assert [r.passed for r in left] == HONEST_OUTCOME
        assert "+ ''" in str(left[3].message), left[3].message
        box.honest_answer_gets_its_true_result()


# ---- 8. code-compiling constructors: strings of the answer never compile in the runner ------------

COMPILE_TESTS = """\
import assert from 'node:assert/strict';
import { test } from 'skill-be/testing';

globalThis.runnerMark = 'runner'; // at the top level: a test function cannot add a global (the realm is sealed)

test('compiles in its own realm', ({ result }) => {
  const f = result(result.code);
  assert.equal(f(), 'undefined'); // compiled in the runner's realm, it would see the runner's mark
});

test('sees its own Function behind a fake', ({ result }) => {
  assert.equal(result.probe(function fake() {}), 'its own Function');
});
"""
COMPILER = """export const result = Object.assign(Function, {
  code: 'return typeof globalThis.runnerMark',
  probe: (fn) => (fn.constructor === Function ? 'its own Function' : "the runner's Function"),
});"""


@pytest.mark.parametrize("weaken", [frozenset(), frozenset({"realm"})], ids=["membrane", "control-in-realm"])
def test_the_answer_s_function_constructor_compiles_in_the_answer_s_realm(
    tmp_path: Path, weaken: frozenset[str]
) -> None:
    project = CodeProject(tmp_path / "proj")
    project.scenarios({"probe": COMPILE_TESTS})
    drive = Driver()
    session = drive.open(project.save_config({"sandbox": "process", "testTimeoutSeconds": 3}, 1), weaken=weaken)
    try:
        run = drive(session.run("probe", "probe", ts(COMPILER)))
    finally:
        drive(session.close())
        drive.close()
    passed = [r.passed for r in run.results]
    # In the runner's realm the answer's Function is the runner's: its string runs there (and a fake's
    # constructor is that same Function, so the second test cannot tell there).
    assert passed == ([False, True] if weaken else [True, True]), [r.message for r in run.results]
