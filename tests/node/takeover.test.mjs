// The runner's layers, one at a time, against the answers that took it over or forged a verdict
// (tests/node/attacks/): each layer that the threat model credits with stopping an attack stops it
// with every other layer off, and with every layer off the attack works (the control). Runs the real
// launcher and runner, as skill-be does (support.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAnswer } from './support.mjs';

const HERE = import.meta.dirname;
const read = (name) => readFileSync(join(HERE, 'attacks', name), 'utf8');
const TESTS = read('sum.test-file.mjs');
const CHAIN = read('emitter-chain.answer.mjs');
const THEN = read('then-poison.answer.mjs');
const HONEST = `export const add = (a, b) => a + b;
export const result = add;
export const report = (events, a, b) => events.emit('sum', a + b);
`;
const NAMES = ['adds two numbers', 'adds negatives', 'reports the sum as an event'];
// Every runner layer a test can switch off.
const LAYERS = ['intrinsics', 'receiver', 'freeze', 'codegen', 'registry', 'records', 'permission'];
const allBut = (...on) => LAYERS.filter((l) => !on.includes(l));

/** For each test, whether any result the runner sent for it passed (the last one is not all it sent). */
function passes(run) {
  const out = Object.fromEntries(NAMES.map((n) => [n, false]));
  for (const ev of run.events) if (ev.e === 'result' && ev.passed === true) out[ev.name] = true;
  return NAMES.map((n) => out[n]);
}

const chainMessage = (run) => run.events.find((e) => e.e === 'result' && e.name === NAMES[2])?.message ?? '';

test('the honest answer passes every test, with every layer on', () => {
  assert.deepEqual(passes(runAnswer(TESTS, HONEST)), [true, true, true]);
});

test('the emitter chain: with every layer on, the wrong answer fails every test', () => {
  const run = runAnswer(TESTS, CHAIN);
  assert.deepEqual(passes(run), [false, false, false]);
  assert.equal(run.events.filter((e) => e.e === 'result').length, 3); // one result per test
});

test('control: with every layer off, the emitter chain passes every test', () => {
  const run = runAnswer(TESTS, CHAIN, { weaken: LAYERS });
  assert.deepEqual(passes(run), [true, true, true]);
  assert.match(chainMessage(run), /took over 3 tests/);
});

for (const [layer, where] of [
  // The chain runs to its end, in the answer's own realm: each built-in it named was its own, so the
  // code it compiled finds no registry there.
  ['intrinsics', /registry failed: Cannot read properties of undefined/],
  ['receiver', /listeners failed/],
  ['codegen', /compile failed: Code generation from strings disallowed/],
  ['registry', /registry failed/],
]) {
  test(`the emitter chain: ${layer} alone stops it`, () => {
    const run = runAnswer(TESTS, CHAIN, { weaken: allBut(layer) });
    assert.deepEqual(passes(run), [false, false, false], chainMessage(run));
    assert.match(chainMessage(run), where);
  });
}

test('the emitter chain is not one the frozen realm or the outcome records stop', () => {
  // What the threat model does not claim, shown: freeze or records alone, and the chain goes through.
  for (const layer of ['freeze', 'records']) {
    assert.deepEqual(passes(runAnswer(TESTS, CHAIN, { weaken: allBut(layer) })), [true, true, true], layer);
  }
});

test('then-poisoning: with every layer on, the report test fails', () => {
  assert.deepEqual(passes(runAnswer(TESTS, THEN)), [false, false, false]);
});

test('control: with every layer off, a poisoned Object.prototype.then turns the failure into a pass', () => {
  assert.deepEqual(passes(runAnswer(TESTS, THEN, { weaken: LAYERS })), [false, false, true]);
});

for (const layer of ['intrinsics', 'freeze', 'records']) {
  test(`then-poisoning: ${layer} alone stops it`, () => {
    assert.deepEqual(passes(runAnswer(TESTS, THEN, { weaken: allBut(layer) })), [false, false, false]);
  });
}

const PROBES = `
import assert from 'node:assert/strict';
import { test } from 'skill-be/testing';
test('no code from strings', () => {
  assert.throws(() => new Function('return 1'), EvalError);
  assert.throws(() => eval('1'), EvalError);
});
test('the registry is frozen', () => {
  const reg = globalThis[Symbol.for('skill-be.testing.registry')];
  assert.ok(Object.isFrozen(reg) && Object.isFrozen(reg.tests) && reg.tests.every((t) => Object.isFrozen(t)));
  assert.throws(() => test('late', () => {}));
  assert.equal(reg.tests.length, 2);
});
`;

test('the runner compiles no code from strings and its registry is frozen', () => {
  const run = runAnswer(PROBES, 'export const result = 1;');
  assert.equal(run.results['no code from strings'].passed, true, run.results['no code from strings'].message);
  assert.equal(run.results['the registry is frozen'].passed, true, run.results['the registry is frozen'].message);
});

test('control: with codegen and registry off, code compiles and the registry is live', () => {
  const run = runAnswer(PROBES, 'export const result = 1;', { weaken: ['codegen', 'registry'] });
  assert.equal(run.results['no code from strings'].passed, false);
  assert.equal(run.results['the registry is frozen'].passed, false);
});
