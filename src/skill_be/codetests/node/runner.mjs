// Runs the code tests of one answer, or lists the tests of test files.
//
//   node runner.mjs list <test file>...   one JSON line: {"<file>": {"names": [...]} | {"error": "..."}}
//   node runner.mjs run                   reads one JSON line on stdin (the request), then runs
//
// The request: {nonce, base, test, answer, testTimeoutMs, run}, or {nonce, ping: true} to check Node runs. `base` holds tests/ (compiled) and
// runs/; the answer is written to runs/<run>/answer.mjs so that its imports resolve from the
// installed packages above it. Protocol lines on stdout start with "\x1e<nonce>\x1f" and carry JSON:
// names, loaded | load-error, start, result, end; fatal when the tests cannot run (skill-be's side).
// Anything else on stdout or stderr is the answer's own output, which skill-be discards.
import { writeSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

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

function describe(err) {
  if (err instanceof Error) {
    const text = err.message || String(err);
    return text.length > 4000 ? `${text.slice(0, 4000)}…` : text;
  }
  try {
    return `threw ${typeof err === 'string' ? err : stringify(err) ?? String(err)}`;
  } catch {
    return `threw ${String(err)}`;
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

async function run() {
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
  const file = join(dir, 'answer.mjs');
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, req.answer);
  } catch (err) {
    emit({ e: 'fatal', message: `the answer could not be written to ${dir}: ${describe(err)}` });
    process.exit(3);
  }

  const reg = freshRegistry();
  try {
    await import(pathToFileURL(join(req.base, req.test)).href);
  } catch (err) {
    emit({ e: 'fatal', message: `the test file throws when loaded: ${describe(err)}` });
    process.exit(3);
  }
  emit({ e: 'names', names: reg.tests.map((t) => t.name) });

  process.env.HOME = dir;
  process.env.TMPDIR = dir;
  process.chdir(dir);

  let fields;
  try {
    const ns = await import(pathToFileURL(file).href);
    if (!('result' in ns)) throw { noResult: true };
    fields = Object.freeze({ ...ns });
  } catch (err) {
    const message = err?.noResult
      ? "the answer's code has no `result` export"
      : `the answer's code throws when loaded: ${describe(err)}`;
    emit({ e: 'load-error', message });
    process.exit(0);
  }
  emit({ e: 'loaded' });

  for (const t of reg.tests) {
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
    emit({ e: 'result', name: t.name, ...outcome, ms: now() - started });
  }
  emit({ e: 'end' });
  // Timers or sockets the answer left open must not keep the process alive.
  process.exit(0);
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'list') await list(rest);
else if (mode === 'run') await run();
else {
  process.stderr.write('usage: runner.mjs list <file>... | run\n');
  process.exit(2);
}
