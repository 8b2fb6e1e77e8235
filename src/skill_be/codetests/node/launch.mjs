// Starts one answer's two processes and stays their parent: the answer's side and the runner
// (runner.mjs), which keeps the tests and their verdicts. It runs no test and no answer code, so it
// can keep what the runner must not have: starting processes, making FIFOs. It runs under the
// runner's own uid, unprivileged: where the sandbox gives the two sides uids of their own, the
// sandbox starts the answer's process (host.mjs) itself and the answer's side here is the relay to it
// (--wrap, sandbox/pair.py); only as the user's own (process, bwrap without root) is it host.mjs.
// It never switches the runner's uid (see docs/threat-model-runner.md).
//
//   node launch.mjs run [--read <path>]... [--host <uid|-> <nproc>] [--wrap <json argv>]
//                       [--weaken <names>]
//
// The runner starts under Node's permission model (permissionFlags): it may read only the paths given
// with --read and its own harness files; it can start no process or worker, load no addon, write no
// file. Its channels are file descriptors opened here: stdin (the request, passed on by this process),
// stdout and stderr (skill-be's), 3 (to the answer's process), 4 and 5 (from it; see transport.mjs).
// Both processes start at once, before the request comes; the request is read here first, so that
// an answer's process started otherwise than the request asks is replaced before the runner sees it.
// Whichever of the two ends first, the other is killed, and this process ends as the first one did:
// the runner ends as the answer's process did, as skill-be expects (codetests/protocol.py).
// The runner compiles no code from strings (NO_CODE_FROM_STRINGS).
// --weaken names protections to switch off (only skill-be's tests pass it, through Settings.weaken):
// permission (no permission model), codegen (code from strings allowed), and the runner's own
// (runner.mjs: freeze, receiver, intrinsics, intrinsic=<name>, registry, records, fatal).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, rmSync, mkdirSync, chownSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * Node's permission flags for the runner: the spelling this Node accepts (`--permission` from 22.13
 * and 23.5, `--experimental-permission` before), reads of `reads` and of the harness only.
 */
export function permissionFlags(version, reads) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  const stable = major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13);
  const flags = [stable ? '--permission' : '--experimental-permission', `--allow-fs-read=${HERE}/`];
  for (const path of reads) flags.push(`--allow-fs-read=${path}`);
  // The permission model's own warning would be the runner's stderr: not the answer's, not news.
  flags.push('--no-warnings');
  return flags;
}

export function parseOptions(argv) {
  const opts = { host: null, wrap: [], reads: [], weaken: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--read') opts.reads.push(String(argv[++i]));
    else if (a === '--host') {
      const uid = argv[++i];
      opts.host = { uid: uid === '-' ? null : Number(uid), nproc: Number(argv[++i]) || 0 };
    } else if (a === '--wrap') opts.wrap = JSON.parse(argv[++i]).map(String);
    else if (a === '--weaken') {
      for (const w of String(argv[++i]).split(',')) if (w) opts.weaken.add(w);
    } else throw new Error(`unknown option ${a}`);
  }
  return opts;
}

// The membrane's two FIFOs, each open once for the writer and twice for the reader (transport.mjs).
function openFifos() {
  const folder = mkdtempSync(join(tmpdir(), 'skill-be-fifo-'));
  try {
    const toHost = join(folder, 'in');
    const fromHost = join(folder, 'out');
    const made = spawnSync('mkfifo', ['-m', '600', toHost, fromHost], { stdio: 'ignore' });
    if (made.status !== 0) throw new Error(`mkfifo failed (${made.error?.message ?? `exit code ${made.status}`})`);
    // Opened read-write first, which never blocks; the other opens then find their peer there.
    const keep = [openSync(toHost, 'r+'), openSync(fromHost, 'r+')];
    const fds = {
      hostIn: openSync(toHost, 'r'),
      hostInSync: openSync(toHost, 'r'),
      runnerOut: openSync(toHost, 'w'),
      runnerIn: openSync(fromHost, 'r'),
      runnerInSync: openSync(fromHost, 'r'),
      hostOut: openSync(fromHost, 'w'),
      keep,
    };
    return fds;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

// The answer's process: under `uid` when this process is root, at most `nproc` processes, in `wrap`.
function startHost(fds, { uid, nproc, wrap, cwd, home }) {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: home };
  for (const k of ['LANG', 'LC_ALL', 'SYSTEMROOT']) if (process.env[k] !== undefined) env[k] = process.env[k];
  const drop = typeof uid === 'number' && process.getuid?.() === 0;
  const hostFile = join(HERE, 'host.mjs');
  const command =
    nproc > 0
      ? ['/bin/sh', '-c', 'ulimit -u "$1" 2>/dev/null; unset PWD OLDPWD; exec "$2" "$3"', 'sh', String(nproc), process.execPath, hostFile]
      : [process.execPath, hostFile];
  const [cmd, ...args] = [...wrap, ...command];
  const host = spawn(cmd, args, {
    cwd,
    env,
    stdio: ['ignore', 'ignore', process.env.SKB_DEBUG ? 'inherit' : 'ignore', fds.hostIn, fds.hostOut, fds.hostInSync],
    ...(drop ? { uid, gid: uid } : {}),
  });
  host.on('error', () => {
    host.failed = true; // no 'exit' may follow: supervise() checks this
  });
  return { host, uid, nproc, wrap };
}

// V8 compiles no code from strings in the runner: `eval`, `new Function(text)` and their kin throw,
// so a runner function the answer reached can never be turned into new code.
export const NO_CODE_FROM_STRINGS = '--disallow-code-generation-from-strings';

function startRunner(fds, opts) {
  const flags = opts.weaken.has('permission') ? [] : permissionFlags(process.version, opts.reads);
  if (!opts.weaken.has('codegen')) flags.unshift(NO_CODE_FROM_STRINGS);
  const weaken = [...opts.weaken].filter((w) => w !== 'permission' && w !== 'codegen');
  const args = [...flags, join(HERE, 'runner.mjs'), 'run', ...(weaken.length ? ['--weaken', weaken.join(',')] : [])];
  const runner = spawn(process.execPath, args, {
    env: process.env,
    stdio: ['pipe', 'inherit', 'inherit', fds.runnerOut, fds.runnerIn, fds.runnerInSync],
  });
  runner.stdin.on('error', () => {});
  return runner;
}

// One line on stdin: the request (codetests/protocol.py), as bytes and parsed.
function readRequest() {
  return new Promise((resolve) => {
    const chunks = [];
    const onData = (chunk) => {
      const at = chunk.indexOf(10);
      if (at === -1) return chunks.push(chunk);
      chunks.push(chunk.subarray(0, at + 1));
      process.stdin.off('data', onData);
      process.stdin.pause();
      const line = Buffer.concat(chunks);
      let req = null;
      try {
        req = JSON.parse(line.toString('utf8'));
      } catch {}
      resolve({ line, req });
    };
    process.stdin.on('data', onData);
    process.stdin.on('end', () => resolve({ line: null, req: null }));
  });
}

function kill(child) {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

function exited(child) {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    setTimeout(resolve, 1000).unref();
  });
}

// Ends this process as a child ended: its exit code, or its signal.
function endAs(code, signal) {
  if (signal) {
    process.kill(process.pid, signal);
    setTimeout(() => process.exit(1), 1000);
    return;
  }
  process.exit(code ?? 1);
}

// The answer's process the request asks for: the early one when it fits, else a new one.
function hostFor(req, fds, early) {
  if (req.ping || req.inRealm) {
    kill(early?.host);
    return null;
  }
  const wrap = Array.isArray(req.wrap) ? req.wrap.map(String) : [];
  const want = { uid: typeof req.uid === 'number' ? req.uid : null, nproc: Number(req.nproc) || 0, wrap };
  if (early && early.uid === want.uid && early.nproc === want.nproc && JSON.stringify(early.wrap) === JSON.stringify(wrap)) {
    return early;
  }
  kill(early?.host);
  const dir = join(String(req.base), 'runs', String(req.run));
  if (wrap.length > 0) {
    // bwrap binds the run folder, so it must exist first, and be the answer's.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (want.uid !== null && process.getuid?.() === 0) chownSync(dir, want.uid, want.uid);
  }
  return startHost(fds, { ...want, cwd: join(String(req.base), 'runs'), home: dir });
}

async function main(argv) {
  const opts = parseOptions(argv);
  const fds = openFifos();
  const home = process.cwd();
  let early = null;
  if (opts.host) early = startHost(fds, { ...opts.host, wrap: opts.wrap, cwd: home, home });
  const runner = startRunner(fds, opts);
  const { line, req } = await readRequest();
  if (req === null) {
    kill(early?.host);
    kill(runner);
    process.exit(2);
  }
  let started;
  try {
    started = hostFor(req, fds, early);
  } catch (err) {
    const message = `the answer's process could not start: ${String(err?.message ?? err).slice(0, 500)}`;
    writeSync(1, `\x1e${req.nonce}\x1f${JSON.stringify({ e: 'fatal', message })}\n`);
    kill(early?.host);
    kill(runner);
    process.exit(3);
  }
  // Only the two children hold the FIFOs now: each sees the other's end as the end of its stream.
  for (const fd of [...fds.keep, fds.hostIn, fds.hostInSync, fds.runnerOut, fds.runnerIn, fds.runnerInSync, fds.hostOut]) {
    closeSync(fd);
  }
  const host = started?.host ?? null;
  const wrapped = (started?.wrap ?? []).length > 0;
  supervise(runner, host, wrapped);
  runner.stdin.end(line);
}

function supervise(runner, host, wrapped) {
  let done = false;
  runner.on('exit', async (code, signal) => {
    if (done) return;
    done = true;
    kill(host);
    await exited(host);
    endAs(code, signal);
  });
  const hostEnded = async (code, signal) => {
    if (done) return;
    done = true;
    // bwrap reports a command killed by signal N as exit code 128 + N.
    if (wrapped && code > 128 && code < 160) [code, signal] = [null, code - 128];
    kill(runner);
    await exited(runner);
    endAs(code, signal);
  };
  if (host === null) return;
  host.on('exit', hostEnded);
  host.on('error', () => hostEnded(127, null)); // it could not start (no bwrap, no node)
  if (host.failed) hostEnded(127, null);
  else if (host.exitCode !== null || host.signalCode !== null) hostEnded(host.exitCode, host.signalCode);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode !== 'run') {
    process.stderr.write('usage: launch.mjs run [options]\n');
    process.exit(2);
  }
  await main(rest);
}
