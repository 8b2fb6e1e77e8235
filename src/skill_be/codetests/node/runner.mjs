// Runs the code tests of one answer, or lists the tests of test files.
//
//   node runner.mjs list <test file>...   one JSON line: {"<file>": {"names": [...]} | {"error": "..."}}
//   node launch.mjs run ...               starts `runner.mjs run [--weaken <names>]` (see launch.mjs),
//                                         which reads one JSON line on stdin (the request), then runs
//
// The request: {nonce, base, test, answer, testTimeoutMs, run, uid, nproc, inRealm, wrap} (wire.mjs,
// REQUEST_FIELDS), or {nonce, ping: true} to check Node runs. `base` holds tests/ (compiled) and runs/;
// the answer is written to runs/<run>/answer.mjs by its own process (host.mjs), which launch.mjs
// started; the tests and the verdicts stay here, and reach the answer through membrane.mjs on fds
// 3, 4 and 5. Protocol lines on stdout start with "\x1e<nonce>\x1f" and carry JSON: names, loaded |
// load-error, start, result, end; fatal when the tests cannot run (skill-be's side). A result and a
// load-error say with `from` whose words their message holds: "answer" (the answer's process wrote
// them: quote them as data), "tests" (the test's assertion, which may quote the answer's values) or
// "skill-be". Anything else on stdout or stderr is not skill-be's to read.
//
// Why the answer cannot turn this process (docs/threat-model-runner.md): nothing that comes from the
// answer's side is one of its objects unless it handed that object over (codec.mjs); its realm is
// frozen (lockdown.mjs) before any test or answer code loads; its tests are a frozen list, run once;
// outcomes are settled from frozen null-prototype records and a test's return value is awaited only
// when it is this realm's own promise (never a thenable from the answer's side); the membrane never
// lets the answer reach a prototype of this realm or choose the receiver of its functions; and
// launch.mjs starts it compiling no code from strings, under Node's permission model, so even a
// taken-over runner starts no process and writes no file.
// --weaken freeze, receiver, intrinsics (or intrinsic=<name>), registry and records switch those off,
// and fatal makes a `fatal` of the answer's process skill-be's error again: only skill-be's tests'
// controls do.
import { writeSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { types } from 'node:util';
import { lockdown, sealLive } from './lockdown.mjs';
import { createEndpoint } from './membrane.mjs';

const REGISTRY = Symbol.for('skill-be.testing.registry');
const writeSyncKept = writeSync; // kept before the answer's code could replace it
const pause = new Int32Array(new SharedArrayBuffer(4));

// stdout may be a non-blocking pipe that the answer's own output has filled: wait and retry.
function write(fd, text) {
  let buf = Buffer.from(text, 'utf8');
  while (buf.length > 0) {
    try {
      buf = buf.subarray(writeSyncKept(fd, buf));
    } catch (err) {
      if (err?.code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 2);
    }
  }
}
const stringify = JSON.stringify;
const now = () => performance.now();

function freshRegistry() {
  const reg = { tests: [], names: new Set() };
  globalThis[REGISTRY] = reg;
  return reg;
}

// The tests as the test file registered them, frozen before the answer comes: a frozen list of
// frozen records, which is also all the registry holds from now on (a registration at run time
// throws), and the registry itself cannot be replaced. The runner runs this list once, never the live
// one, so each test has one result (testing.js refuses a name twice; skill-be fails a test reported
// twice all the same: codetests/protocol.py).
function sealRegistry(reg) {
  const tests = freeze(reg.tests.map((t) => freeze({ name: String(t.name), fn: t.fn })));
  const sealed = freeze({ tests, names: freeze(new Set(tests.map((t) => t.name))) });
  Object.defineProperty(globalThis, REGISTRY, { value: sealed, writable: false, enumerable: false, configurable: false });
  return tests;
}

// Every message that can carry the answer's words is cut to this, with a visible mark.
const MESSAGE_MAX = 2000;
const cap = (text) => (text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX)} [truncated]` : text);

function describe(err) {
  try {
    if (err instanceof Error) return cap(String(err.message || String(err)));
    if (typeof err === 'string') return cap(`threw ${err}`);
    return cap(`threw ${stringify(err) ?? String(err)}`);
  } catch {
    try {
      return cap(`threw ${String(err)}`);
    } catch {
      return 'threw a value that cannot be shown';
    }
  }
}

async function list(files) {
  const out = {};
  for (const file of files) {
    const reg = freshRegistry();
    try {
      await import(pathToFileURL(file).href);
      out[file] = reg.tests.length > 0 ? { names: reg.tests.map((t) => t.name) } : { error: 'registers no test' };
    } catch (err) {
      out[file] = { error: `throws when loaded: ${describe(err)}` };
    }
  }
  write(1, `${stringify(out)}\n`);
}

function readRequest() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const onData = (chunk) => {
      const at = chunk.indexOf(10);
      if (at === -1) return chunks.push(chunk);
      chunks.push(chunk.subarray(0, at));
      process.stdin.off('data', onData);
      process.stdin.pause();
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    };
    process.stdin.on('data', onData);
    process.stdin.on('end', () => reject(new Error('no request on stdin')));
  });
}

const { isPromise, isProxy } = types;
const promiseThen = Promise.prototype.then;
const freeze = Object.freeze;

// An outcome: null-prototype and frozen, so resolving a promise with it can never call a `then`.
// (`--weaken records`, a test's control only: a plain object, as a careless runner would make.)
let plainRecords = false;
function record(passed, message, from) {
  const r = plainRecords ? {} : Object.create(null);
  r.passed = passed;
  r.message = message;
  r.from = from;
  return plainRecords ? r : freeze(r);
}

function weakened(options) {
  const at = options.indexOf('--weaken');
  return new Set(at >= 0 ? String(options[at + 1]).split(',') : []);
}

// The names of the answer's built-ins the runner takes as its own: a test's control only
// (`intrinsics`: every name, as the runner once did; `intrinsic=<name>`: one, a planted hole).
function openNames(weaken) {
  if (weaken.has('intrinsics')) return true;
  const one = [...weaken].filter((w) => w.startsWith('intrinsic=')).map((w) => w.slice('intrinsic='.length));
  return one.length > 0 ? new Set(one) : null;
}

// Runs one test; resolves with a record (record()) only. A test's return value is awaited only when
// it is this realm's own promise: a thenable from the answer's side is never assimilated here.
function runTest(t, fields, timeoutMs, setFail, fromOf) {
  return new Promise((resolve) => {
    let timer = null;
    let settled = false;
    const finish = (rec) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(rec);
    };
    const failed = (err) => finish(record(false, describe(err), fromOf(err)));
    setFail((err) => finish(record(false, `uncaught error: ${describe(err)}`, fromOf(err))));
    timer = setTimeout(() => finish(record(false, `timed out after ${timeoutMs / 1000} s`, 'skill-be')), timeoutMs);
    let ret;
    try {
      ret = t.fn(fields);
    } catch (err) {
      failed(err);
      return;
    }
    if (isPromise(ret) && !isProxy(ret)) Reflect.apply(promiseThen, ret, [() => finish(record(true, null, null)), failed]);
    else finish(record(true, null, null));
  });
}

async function run(options) {
  const weaken = weakened(options);
  plainRecords = weaken.has('records');
  if (!weaken.has('freeze')) lockdown();
  const req = await readRequest();
  const prefix = `\x1e${req.nonce}\x1f`;
  const emit = (event) => write(1, `${prefix}${stringify(event)}\n`);

  // What a test is waiting on: an uncaught error while it runs fails it.
  let failCurrent = null;
  const uncaught = (err) => {
    if (failCurrent) failCurrent(err);
  };
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', uncaught);

  if (req.ping) {
    emit({ e: 'pong', node: process.version });
    process.exit(0);
  }

  const dir = join(req.base, 'runs', req.run);
  const reg = freshRegistry();
  try {
    await import(pathToFileURL(join(req.base, req.test)).href);
  } catch (err) {
    emit({ e: 'fatal', message: `the test file throws when loaded: ${describe(err)}` });
    process.exit(3);
  }
  // The built-in modules the test file loaded are frozen too, before the answer comes; so are the
  // objects with state that the realm's lockdown leaves writable (no new property on them).
  if (!weaken.has('freeze')) {
    lockdown();
    sealLive();
  }
  // `--weaken registry` (a test's control only): the live registry, as the runner once ran it.
  const live = weaken.has('registry');
  const tests = live ? reg.tests : sealRegistry(reg);
  emit({ e: 'names', names: tests.map((t) => t.name) });

  let current = null; // the test that is running
  const answer = req.inRealm
    ? await loadInRealm(req, dir, emit)
    : await loadInHost(req, dir, emit, (err) => uncaught(err), () => current, weaken);
  const { fields } = answer;
  emit({ e: 'loaded' });

  for (const t of tests) {
    current = t.name;
    emit({ e: 'start', name: t.name });
    const started = now();
    const outcome = await runTest(t, fields, req.testTimeoutMs, (f) => (failCurrent = f), answer.fromOf);
    failCurrent = null;
    current = null;
    if (answer.ended()) await new Promise(() => {}); // launch.mjs ends this process as the answer's ended
    emit({ e: 'result', name: t.name, passed: outcome.passed, message: outcome.message, from: outcome.from, ms: now() - started });
  }
  emit({ e: 'end' });
  // Timers or sockets left open must not keep the process alive; launch.mjs then stops the answer's.
  process.exit(0);
}

// The old way, kept for the tests' controls only: the answer in this process's own realm, where it
// can reach the built-ins, the registry and the assertion module the verdicts depend on.
async function loadInRealm(req, dir, emit) {
  const file = join(dir, 'answer.mjs');
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, req.answer);
  } catch (err) {
    emit({ e: 'fatal', message: `the answer could not be written to ${dir}: ${describe(err)}` });
    process.exit(3);
  }
  process.env.HOME = dir;
  process.env.TMPDIR = dir;
  process.chdir(dir);
  try {
    const ns = await import(pathToFileURL(file).href);
    if (!('result' in ns)) throw { noResult: true };
    return { fields: Object.freeze({ ...ns }), ended: () => false, fromOf: () => 'answer' };
  } catch (err) {
    const message = err?.noResult
      ? "the answer's code has no `result` export"
      : `the answer's code throws when loaded: ${describe(err)}`;
    emit({ e: 'load-error', message, from: err?.noResult ? 'skill-be' : 'answer' });
    process.exit(0);
  }
}

// The answer in its own process (host.mjs, started by launch.mjs): the tests reach its fields through
// the membrane (fds 3: to it; 4 and 5: from it).
async function loadInHost(req, dir, emit, onUncaught, currentTest, weaken) {
  let ended = false;
  // The answer's process is gone, or broke the channel: launch.mjs ends this process as that one
  // ended, so until then no further result is sent (a test expecting a throw would pass otherwise).
  const hostEnded = (why) => {
    if (ended) return;
    ended = true;
    if (why?.startsWith('it sent a value over') && currentTest() !== null) {
      emit({ e: 'result', name: currentTest(), passed: false, message: `the answer's process ${why}`, from: 'skill-be', ms: 0 });
    }
  };
  let loaded;
  const ready = new Promise((resolve) => {
    loaded = resolve;
  });
  const ep = createEndpoint({
    side: 'runner',
    asyncFd: 4,
    syncFd: 5,
    writeFd: 3,
    guarded: !weaken.has('receiver'),
    openNames: openNames(weaken),
    keepAlive: true, // the answer's process may be all this one waits for; run() ends with process.exit
    onEvent: (ev) => {
      if (ev.e === 'gone') hostEnded(String(ev.why));
      else if (ev.e === 'loaded' || ev.e === 'load-error' || ev.e === 'fatal') loaded(record(ev.e === 'loaded', null, ev));
      else if (ev.e === 'uncaught') onUncaught(decoded(ep, ev.error));
    },
  });
  ep.event({ e: 'init', dir, answer: req.answer });
  const ev = (await ready).from;
  if (ev.e === 'fatal' && weaken.has('fatal')) {
    emit({ e: 'fatal', message: cap(String(ev.message)) }); // the old way, for a test's control only
    process.exit(3);
  }
  if (ev.e !== 'loaded') {
    emit({ e: 'load-error', ...loadError(ep, ev) });
    process.exit(0);
  }
  const fields = {};
  for (const [key, value] of Array.isArray(ev.fields) ? ev.fields : []) {
    if (typeof key !== 'string' || key === '__proto__') continue;
    try {
      fields[key] = ep.dec(value);
    } catch {}
  }
  const fromOf = (err) => (ep.fromPeer(err) ? 'answer' : 'tests');
  return { fields: Object.freeze(fields), ended: () => ended, fromOf };
}

function decoded(ep, x) {
  try {
    return ep.dec(x);
  } catch (e) {
    return e;
  }
}

// Why the answer did not load. Whatever its process sends, `fatal` included, is the answer's failure
// in its own words (from: 'answer'), never skill-be's error.
function loadError(ep, ev) {
  if (ev.e === 'fatal') return { message: `the answer's process failed: ${cap(String(ev.message))}`, from: 'answer' };
  if (ev.noResult === true) return { message: "the answer's code has no `result` export", from: 'skill-be' };
  return { message: `the answer's code throws when loaded: ${describe(decoded(ep, ev.error))}`, from: 'answer' };
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'list') await list(rest);
else if (mode === 'run') await run(rest);
else {
  process.stderr.write('usage: runner.mjs list <file>... | run\n');
  process.exit(2);
}
