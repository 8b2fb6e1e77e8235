// A test file of the most ordinary kind: two tests of `add`, and one that hands the answer an
// EventEmitter to report on. The wrong answer `a - b` must fail all three, whatever it does with the
// emitter (emitter-chain.answer.mjs, then-poison.answer.mjs). Read by tests/node/takeover.test.mjs and
// by the sandbox contract suite (tests/integration/codetests/test_sandbox_contract.py).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'skill-be/testing';

test('adds two numbers', ({ add }) => {
  assert.equal(add(2, 3), 5);
});

test('adds negatives', ({ add }) => {
  assert.equal(add(-2, -3), -5);
});

test('reports the sum as an event', async ({ report }) => {
  const events = new EventEmitter();
  const got = new Promise((resolve) => events.once('sum', resolve));
  report(events, 4, 5);
  assert.equal(await got, 9);
});
