// Runs the code tests of one answer, or lists the tests of test files.
//
//   node runner.mjs list <test file>...   one JSON line: {"<file>": {"names": [...]} | {"error": "..."}}
//   node runner.mjs run                   reads one JSON line on stdin (the request), then runs
//
// The request: {nonce, base, test, answer, testTimeoutMs, run, uid, nproc, inRealm}, or {nonce, ping: true} to
// check Node runs. `base` holds tests/ (compiled) and runs/; the answer is written to runs/<run>/answer.mjs
// so that its imports resolve from the installed packages above it. The answer runs in a process of its
// own (host.mjs), under `uid` when this runner is root, with at most `nproc` processes; the tests and
// the verdicts stay here (see membrane.mjs). Protocol lines on stdout start with "\x1e<nonce>\x1f" and carry JSON:
// names, loaded | load-error, start, result, end; fatal when the tests cannot run (skill-be's side).
// Anything else on stdout or stderr is the answer's own output, which skill-be discards.
import { writeSync, mkdirSync, writeFileSync, mkdtempSync, openSync, closeSync, rmSync, chownSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { createEndpoint, readStat } from './membrane.mjs';

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

async function run(options) {
  // Start the answer's process while the request is still to come: its start is then off the
  // answer's path. `--host <uid|-> <nproc>` says how; without it, it starts once the request is read.
  let early = null;
  const at = options.indexOf('--host');
  if (at >= 0) {
    const uid = options[at + 1] === '-' ? null : Number(options[at + 1]);
    const w = options.indexOf('--wrap');
    const wrap = w >= 0 ? JSON.parse(options[w + 1]).map(String) : [];
    early = startHost({ uid, nproc: Number(options[at + 2]) || 0, wrap, cwd: process.cwd(), home: process.cwd() });
  }
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
    await reap(early?.host);
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
  emit({ e: 'names', names: reg.tests.map((t) => t.name) });

  let current = null; // the test that is running
  if (req.inRealm) await reap(early?.host);
  const answer = req.inRealm
    ? await loadInRealm(req, dir, emit)
    : await loadInHost(req, dir, emit, (err) => uncaught(err), () => current, early);
  const { fields } = answer;
  emit({ e: 'loaded' });

  for (const t of reg.tests) {
    current = t.name;
    emit({ e: 'start', name: t.name });
    const started = now();
    let timer;
    const outcome = await new Promise((resolve) => {
      failCurrent = (err) => resolve({ passed: false, message: `uncaught error: ${describe(err)}` });
      timer = setTimeout(
        () => resolve({ passed: false, message: `timed out after ${req.testTimeoutMs / 1000} s` }),
        req.testTimeoutMs,
      );
      Promise.resolve()
        .then(() => t.fn(fields))
        .then(
          () => resolve({ passed: true, message: null }),
          (err) => resolve({ passed: false, message: describe(err) }),
        );
    });
    clearTimeout(timer);
    failCurrent = null;
    current = null;
    if (answer.ended()) await new Promise(() => {}); // the exit event ends this process
    emit({ e: 'result', name: t.name, ...outcome, ms: now() - started });
  }
  emit({ e: 'end' });
  await answer.stop();
  // Timers or sockets left open must not keep the process alive.
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
    return { fields: Object.freeze({ ...ns }), ended: () => false, stop: async () => {} };
  } catch (err) {
    const message = err?.noResult
      ? "the answer's code has no `result` export"
      : `the answer's code throws when loaded: ${describe(err)}`;
    emit({ e: 'load-error', message });
    process.exit(0);
  }
}

// The answer in its own process (host.mjs), under req.uid when this runner may switch to it; the
// tests reach its fields through the membrane.
// Kills a process and waits (a second at most) until Node has reaped it.
function reap(child, listener) {
  return new Promise((resolve) => {
    if (!child) return resolve();
    if (listener) child.off('exit', listener);
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
    setTimeout(resolve, 1000).unref();
  });
}

// Starts the answer's process (host.mjs) with the membrane's FIFOs: under `uid` when this runner is
// root, with at most `nproc` processes, inside `wrap` (bwrap) when given. Never throws: a failure
// is the returned `error`, reported once the request (and its nonce) is known.
function startHost({ uid, nproc, wrap, cwd, home }) {
  const started = { uid, nproc, wrap };
  let fifos;
  try {
    fifos = mkdtempSync(join(tmpdir(), 'skill-be-fifo-'));
    const toHost = join(fifos, 'in');
    const fromHost = join(fifos, 'out');
    const made = spawnSync('mkfifo', ['-m', '600', toHost, fromHost], { stdio: 'ignore' });
    if (made.status !== 0) throw new Error(`mkfifo failed (${made.error?.message ?? `exit code ${made.status}`})`);
    // Both ends open read-write (which never blocks); the runner writes through its own write-only
    // end and reads through a read-only one. It keeps hostOut to wake its reader thread at exit, so it
    // learns that the answer's process died from /proc and the exit event, not from the stream's end.
    const hostIn = openSync(toHost, 'r+');
    const hostOut = openSync(fromHost, 'r+');
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: home };
    for (const k of ['LANG', 'LC_ALL', 'SYSTEMROOT']) if (process.env[k] !== undefined) env[k] = process.env[k];
    const drop = typeof uid === 'number' && process.getuid?.() === 0;
    const hostFile = fileURLToPath(new URL('./host.mjs', import.meta.url));
    const command =
      nproc > 0
        ? ['/bin/sh', '-c', 'ulimit -u "$1" 2>/dev/null; unset PWD OLDPWD; exec "$2" "$3"', 'sh', String(nproc), process.execPath, hostFile]
        : [process.execPath, hostFile];
    const [cmd, ...args] = [...wrap, ...command];
    started.host = spawn(cmd, args, {
      cwd,
      env,
      stdio: ['ignore', 'ignore', 'ignore', hostIn, hostOut],
      ...(drop ? { uid, gid: uid } : {}),
    });
    started.toHostW = openSync(toHost, 'w');
    started.fromHostR = openSync(fromHost, 'r');
    started.hostOut = hostOut;
    closeSync(hostIn);
  } catch (err) {
    started.error = `the answer's process could not start: ${describe(err)}`;
    started.host?.kill('SIGKILL');
  } finally {
    if (fifos) rmSync(fifos, { recursive: true, force: true });
  }
  return started;
}

// The answer in its own process, under req.uid when this runner may switch to it; the tests reach
// its fields through the membrane. `early` is the process started before the request came, used when
// it was started as the request asks.
async function loadInHost(req, dir, emit, onUncaught, currentTest, early) {
  const wrap = Array.isArray(req.wrap) ? req.wrap.map(String) : [];
  const drop = typeof req.uid === 'number' && process.getuid?.() === 0;
  if (wrap.length > 0) {
    // bwrap binds the run folder, so it must exist first, and be the answer's.
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (drop) chownSync(dir, req.uid, req.uid);
    } catch (err) {
      emit({ e: 'fatal', message: `the answer's folder could not be made in ${dir}: ${describe(err)}` });
      process.exit(3);
    }
  }
  let started = early;
  const fits =
    started &&
    started.uid === (req.uid ?? null) &&
    started.nproc === (req.nproc ?? 0) &&
    stringify(started.wrap) === stringify(wrap);
  if (started && !fits) {
    await reap(started.host);
    started = null;
  }
  started ??= startHost({ uid: req.uid ?? null, nproc: req.nproc ?? 0, wrap, cwd: join(req.base, 'runs'), home: dir });
  if (started.error) {
    emit({ e: 'fatal', message: started.error });
    process.exit(3);
  }
  const { host, toHostW, fromHostR, hostOut } = started;

  let ended = false;
  // The answer's process is gone, or broke the channel. The runner then ends as that process ended,
  // so skill-be reports it exactly as when the answer ran in the runner itself; it learns how from
  // the exit event (root without CAP_SYS_PTRACE cannot read another uid's exit code in /proc), so
  // until then no further result is sent.
  const hostEnded = (why) => {
    if (ended) return;
    ended = true;
    if (why?.startsWith('it sent a value over') && currentTest() !== null) {
      emit({ e: 'result', name: currentTest(), passed: false, message: `the answer's process ${why}`, ms: 0 });
    }
    const [state] = readStat(host.pid);
    if (state !== 'Z' && state !== 'X') host.kill('SIGKILL'); // alive, but the channel is broken
  };
  const mirror = (code, signal) => {
    ended = true;
    // bwrap reports a command killed by signal N as exit code 128 + N.
    if (wrap.length > 0 && code > 128 && code < 160) [code, signal] = [null, code - 128];
    if (signal) process.kill(process.pid, signal);
    process.exit(code ?? 1);
  };
  host.on('exit', mirror);
  if (host.exitCode !== null || host.signalCode !== null) mirror(host.exitCode, host.signalCode);

  let loaded;
  const ready = new Promise((resolve) => {
    loaded = resolve;
  });
  const ep = createEndpoint({
    side: 'runner',
    readFd: fromHostR,
    writeFd: toHostW,
    wakeFd: hostOut,
    peerAlive: () => {
      const [state] = readStat(host.pid);
      return state !== 'Z' && state !== 'X';
    },
    onEvent: (ev) => {
      if (ev.e === 'gone') hostEnded(String(ev.why));
      else if (ev.e === 'loaded' || ev.e === 'load-error' || ev.e === 'fatal') loaded(ev);
      else if (ev.e === 'uncaught') {
        let err;
        try {
          err = ep.dec(ev.error);
        } catch (e) {
          err = e;
        }
        onUncaught(err);
      }
    },
  });
  ep.event({ e: 'init', dir, answer: req.answer });
  const ev = await ready;
  if (ev.e === 'fatal') {
    emit({ e: 'fatal', message: cap(String(ev.message)) });
    process.exit(3);
  }
  if (ev.e === 'load-error') {
    let message = "the answer's code has no `result` export";
    if (!ev.noResult) {
      let err;
      try {
        err = ep.dec(ev.error);
      } catch (e) {
        err = e;
      }
      message = `the answer's code throws when loaded: ${describe(err)}`;
    }
    emit({ e: 'load-error', message });
    await reap(host, mirror);
    process.exit(0);
  }
  const fields = {};
  for (const [key, value] of Array.isArray(ev.fields) ? ev.fields : []) {
    if (typeof key !== 'string' || key === '__proto__') continue;
    try {
      fields[key] = ep.dec(value);
    } catch {}
  }
  return {
    fields: Object.freeze(fields),
    ended: () => ended,
    // Killed and reaped before the runner exits: an orphan would wait as a zombie for PID 1 to reap it.
    stop: () => reap(host, mirror),
  };
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'list') await list(rest);
else if (mode === 'run') await run(rest);
else {
  process.stderr.write('usage: runner.mjs list <file>... | run\n');
  process.exit(2);
}
