// The wire format and the runner's protocol agree with skill-be's side (codetests/protocol.py), the
// transport's framing holds across chunk boundaries, and the launcher builds the permission flags
// each Node version accepts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_DIR } from './support.mjs';
import { REQUEST_FIELDS, RUNNER_EVENTS } from '../../src/skill_be/codetests/node/wire.mjs';
import { createParser, frame, MAX_FRAME } from '../../src/skill_be/codetests/node/transport.mjs';
import { permissionFlags, parseOptions } from '../../src/skill_be/codetests/node/launch.mjs';

const PROTOCOL = readFileSync(join(NODE_DIR, '..', 'protocol.py'), 'utf8');

function pythonTuple(name) {
  const m = PROTOCOL.match(new RegExp(`^${name} = \\(([^)]*)\\)`, 'm'));
  assert.ok(m, `${name} in protocol.py`);
  return [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]);
}

test('the request fields are the ones protocol.py writes', () => {
  assert.deepEqual(pythonTuple('REQUEST_FIELDS'), [...REQUEST_FIELDS]);
  const start = PROTOCOL.indexOf('{', PROTOCOL.indexOf('def _request('));
  assert.ok(PROTOCOL.includes('def _request(') && start > 0, 'protocol.py builds the request in _request');
  const body = PROTOCOL.slice(start, PROTOCOL.indexOf('}', start));
  const written = [...body.matchAll(/^\s+"([A-Za-z]+)":/gm)].map((x) => x[1]);
  assert.deepEqual(written, [...REQUEST_FIELDS]);
});

test('the runner events are the ones protocol.py reads', () => {
  assert.deepEqual(pythonTuple('RUNNER_EVENTS'), [...RUNNER_EVENTS]);
  const runner = readFileSync(join(NODE_DIR, 'runner.mjs'), 'utf8');
  const emitted = new Set([...runner.matchAll(/emit\(\{ e: '([a-z-]+)'/g)].map((x) => x[1]));
  for (const e of emitted) assert.ok(RUNNER_EVENTS.includes(e), `runner.mjs emits ${e}`);
  for (const e of RUNNER_EVENTS) assert.ok(PROTOCOL.includes(`"${e}"`), `protocol.py handles ${e}`);
});

test('frames survive any split of the stream', () => {
  const bytes = Buffer.concat([frame('{"a":1}'), frame('"é"'), frame('')]);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const p = createParser();
    p.feed(bytes.subarray(0, cut));
    p.feed(bytes.subarray(cut));
    assert.deepEqual(p.frames, ['{"a":1}', '"é"', '']);
  }
});

test('a frame over the limit ends the stream', () => {
  const p = createParser();
  const head = Buffer.alloc(4);
  head.writeUInt32BE(MAX_FRAME + 1);
  p.feed(head);
  p.feed(frame('1'));
  assert.deepEqual(p.frames, [{ tooBig: MAX_FRAME + 1 }]);
  assert.ok(p.closed());
});

test('the permission flag is spelled as each Node version takes it', () => {
  assert.equal(permissionFlags('v20.20.2', [])[0], '--experimental-permission');
  assert.equal(permissionFlags('v22.12.0', [])[0], '--experimental-permission');
  assert.equal(permissionFlags('v22.13.0', [])[0], '--permission');
  assert.equal(permissionFlags('v23.4.0', [])[0], '--experimental-permission');
  assert.equal(permissionFlags('v24.1.0', [])[0], '--permission');
  const flags = permissionFlags('v22.23.5', ['/w/tests/']);
  assert.ok(flags.includes('--allow-fs-read=/w/tests/'));
  assert.ok(!flags.some((f) => /allow-(child-process|worker|addons|wasi|fs-write)/.test(f)));
});

test('launch.mjs options', () => {
  const o = parseOptions(['--read', '/a/', '--host', '-', '0', '--wrap', '["bwrap"]', '--weaken', 'freeze,receiver']);
  assert.deepEqual(o.reads, ['/a/']);
  assert.deepEqual(o.host, { uid: null, nproc: 0 });
  assert.deepEqual(o.wrap, ['bwrap']);
  assert.deepEqual([...o.weaken], ['freeze', 'receiver']);
  assert.throws(() => parseOptions(['--allow-everything']));
});
