// The membrane fuzzer: fast-check sequences of what an answer can do (fuzz/model.mjs), played in the
// answer's process (fuzz/interpreter.mjs) against the objects tests commonly hand over, each checked
// from the runner's side against the invariants (fuzz/world.mjs): no runner built-in or prototype
// stored where the answer reaches, no runner function run with a receiver the answer chose, the
// registry and the outcomes untouched. Every counterexample it ever found is replayed first
// (fuzz/counterexamples.json). The control: a runner with one planted hole (it takes one of the
// answer's built-ins as its own, --weaken intrinsic=<name>) is found within the same budget.
//
// CI runs it with a fixed seed for a bounded number of sequences. Longer, on demand:
//   SKB_FUZZ_RUNS=200000 SKB_FUZZ_SECONDS=600 SKB_FUZZ_SEED=<n> node --test tests/node/membrane-fuzz.test.mjs
// fast-check comes from SKB_FAST_CHECK (the package's folder) or .ci/cache/fast-check (.ci/steps/26-fast-check.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NODE_DIR, runAnswer } from './support.mjs';

const HERE = import.meta.dirname;
const ROOT = join(HERE, '..', '..');
const FAST_CHECK = process.env.SKB_FAST_CHECK || join(ROOT, '.ci', 'cache', 'fast-check', 'lib', 'node_modules', 'fast-check');
const SEED = Number(process.env.SKB_FUZZ_SEED ?? 20261201);
const RUNS = Number(process.env.SKB_FUZZ_RUNS ?? 2500);
const SECONDS = Number(process.env.SKB_FUZZ_SECONDS ?? 30);
const COUNTEREXAMPLES = JSON.parse(readFileSync(join(HERE, 'fuzz', 'counterexamples.json'), 'utf8'));
const HOLE = process.env.SKB_FUZZ_HOLE ?? 'Reflect.apply'; // the planted hole of the control

const url = (p) => pathToFileURL(p).href;

function testFile({ runs, seconds, examples }) {
  const config = { seed: SEED, runs, ms: seconds * 1000, examples };
  return `
import fc from ${JSON.stringify(url(join(FAST_CHECK, 'lib', 'fast-check.js')))};
import { test } from 'skill-be/testing';
import { makeWorld, violations } from ${JSON.stringify(url(join(HERE, 'fuzz', 'world.mjs')))};
import { sequences } from ${JSON.stringify(url(join(HERE, 'fuzz', 'model.mjs')))};
import { INTRINSICS } from ${JSON.stringify(url(join(NODE_DIR, 'intrinsics.mjs')))};
const CONFIG = ${JSON.stringify(config)};
test('fuzz', async ({ play }) => {
  const started = performance.now();
  let played = 0;
  const property = fc.asyncProperty(sequences(fc, [...INTRINSICS.byName.keys()]), async (sequence) => {
    const world = makeWorld();
    await play(world.handles, JSON.stringify(sequence));
    played++;
    const broke = violations(world);
    if (broke.length > 0) throw new Error(broke.join('; '));
  });
  // A promise of the answer's that rejects in the runner with nobody waiting fails the running test
  // (runner.mjs); the sequences make such promises by the hundred (a built-in of the answer's that the
  // runner calls may return one), so while they play those are counted, not the fuzz test's failure.
  let rejections = 0;
  const count = () => { rejections++; };
  const kept = process.listeners('unhandledRejection');
  for (const l of kept) process.off('unhandledRejection', l);
  process.on('unhandledRejection', count);
  let out;
  try {
    out = await fc.check(property, {
      seed: CONFIG.seed, numRuns: CONFIG.runs, interruptAfterTimeLimit: CONFIG.ms, markInterruptAsFailure: false,
      examples: CONFIG.examples.map((e) => [e]),
    });
  } finally {
    process.off('unhandledRejection', count);
    for (const l of kept) process.on('unhandledRejection', l);
  }
  const report = { rejections, failed: out.failed, runs: out.numRuns, played, interrupted: out.interrupted, seed: out.seed, ms: Math.round(performance.now() - started) };
  if (out.failed) {
    report.counterexample = out.counterexample?.[0];
    report.error = String(out.errorInstance?.message ?? out.error ?? '').slice(0, 300);
  }
  throw new Error('FUZZ ' + JSON.stringify(report));
});
test('canary', () => { throw new Error('canary: this test fails'); });
`;
}

const ANSWER = `export { play } from ${JSON.stringify(url(join(HERE, 'fuzz', 'interpreter.mjs')))};\nexport const result = 1;\n`;

/** The fuzzer's report, after checking from outside that the outcomes and the registry held. */
function fuzz({ weaken = [], runs = RUNS, seconds = SECONDS, examples = COUNTEREXAMPLES.map((c) => c.sequence) } = {}) {
  assert.ok(existsSync(join(FAST_CHECK, 'package.json')), `fast-check is missing at ${FAST_CHECK}: run .ci/steps/26-fast-check.sh`);
  const run = runAnswer(testFile({ runs, seconds, examples }), ANSWER, {
    weaken,
    timeoutMs: (seconds + 60) * 1000,
    reads: [`${FAST_CHECK}/`, `${join(HERE, 'fuzz')}/`],
  });
  const results = run.events.filter((e) => e.e === 'result');
  assert.deepEqual(results.map((r) => r.name), ['fuzz', 'canary'], `${JSON.stringify(run.events).slice(0, 2000)} ${run.stderr}`);
  assert.deepEqual([results[1].passed, results[1].message], [false, 'canary: this test fails']);
  const message = String(results[0].message);
  assert.ok(message.startsWith('FUZZ '), message);
  return JSON.parse(message.slice(5));
}

test('the membrane holds every invariant over the fuzzer\'s sequences', () => {
  const report = fuzz();
  assert.equal(report.failed, false, JSON.stringify(report));
  assert.ok(report.played >= COUNTEREXAMPLES.length, JSON.stringify(report));
  console.log(`membrane fuzz: ${report.played} sequences in ${report.ms} ms, seed ${report.seed}${report.interrupted ? ' (cut by the time limit)' : ''}`);
});

test(`control: a runner that takes the answer's ${HOLE} as its own is found within the same budget`, () => {
  const report = fuzz({ weaken: [`intrinsic=${HOLE}`], examples: [] });
  assert.equal(report.failed, true, JSON.stringify(report));
  assert.match(report.error, new RegExp(`the runner's ${HOLE.replace(/\./g, '\\.')} is stored|${HOLE.replace(/\./g, '\\.')}`));
  console.log(`planted hole ${HOLE}: found after ${report.runs} sequences in ${report.ms} ms: ${report.error}`);
});

test('control: a runner whose membrane lets the answer choose the receiver is found within the same budget', () => {
  const report = fuzz({ weaken: ['receiver'], examples: [] });
  assert.equal(report.failed, true, JSON.stringify(report));
  assert.match(report.error, /as this|a receiver the answer chose/);
  console.log(`open receivers: found after ${report.runs} sequences in ${report.ms} ms: ${report.error}`);
});
