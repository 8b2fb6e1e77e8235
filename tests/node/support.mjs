// Runs one answer against one test file through the real launcher, as skill-be does (the process
// runner, this machine's Node): a work folder of its own, the request on stdin, the events back.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'skill_be', 'codetests', 'node');

export function workFolder(testSource) {
  const base = mkdtempSync(join(tmpdir(), 'skill-be-node-test-'));
  writeFileSync(join(base, 'package.json'), '{"private": true, "type": "module"}\n');
  const pkg = join(base, 'node_modules', 'skill-be');
  mkdirSync(pkg, { recursive: true });
  copyFileSync(join(NODE_DIR, 'testing', 'testing.js'), join(pkg, 'testing.js'));
  const manifest = { name: 'skill-be', type: 'module', exports: { './testing': './testing.js' } };
  writeFileSync(join(pkg, 'package.json'), JSON.stringify(manifest));
  mkdirSync(join(base, 'tests'));
  mkdirSync(join(base, 'runs'));
  writeFileSync(join(base, 'tests', 't.js'), testSource);
  return base;
}

/** {events, results: {name: {passed, message, from}}, status} of one answer; `weaken`: launch.mjs's;
 * `reads`: more folders the runner may read (what the test file imports from outside its folder). */
export function runAnswer(testSource, answer, { weaken = [], timeoutMs = 5000, reads = [] } = {}) {
  const base = workFolder(testSource);
  try {
    const nonce = 'n0nce';
    const request = { nonce, base, test: 'tests/t.js', answer, testTimeoutMs: timeoutMs, run: 'r', uid: null, nproc: 0, inRealm: false, wrap: [] };
    const args = [join(NODE_DIR, 'launch.mjs'), 'run', '--read', `${base}/tests/`, '--read', `${base}/node_modules/`,
      '--read', `${base}/package.json`, ...reads.flatMap((r) => ['--read', r]), '--host', '-', '0'];
    if (weaken.length) args.push('--weaken', weaken.join(','));
    const done = spawnSync(process.execPath, args, { input: `${JSON.stringify(request)}\n`, cwd: base, timeout: timeoutMs + 30000 });
    const events = [];
    for (const line of done.stdout.toString('utf8').split('\n')) {
      const at = line.indexOf(`\x1e${nonce}\x1f`);
      if (at >= 0) events.push(JSON.parse(line.slice(at + nonce.length + 2)));
    }
    const results = {};
    for (const ev of events) if (ev.e === 'result') results[ev.name] = ev;
    return { events, results, status: done.status, stderr: done.stderr.toString('utf8') };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** Every named test of the run passed; else an error listing the failures. */
export function failures(run) {
  const failed = Object.values(run.results).filter((r) => !r.passed).map((r) => `${r.name}: ${r.message}`);
  if (Object.keys(run.results).length === 0) failed.push(`no result (${JSON.stringify(run.events)} ${run.stderr})`);
  return failed;
}
