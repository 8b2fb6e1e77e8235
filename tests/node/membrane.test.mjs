// The membrane's invariants and its wire format, through the real launcher and runner: every tag of
// wire.mjs round-trips, every message kind is used, no prototype of the runner's realm reaches the
// answer, a runner function's receiver is never the answer's choice, and the runner's realm is
// frozen; each protection with a control (launch.mjs --weaken) where the same probe then fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runAnswer, failures } from './support.mjs';
import { TAGS, KINDS } from '../../src/skill_be/codetests/node/wire.mjs';

// Runner side: each test names the tags (T:) and message kinds (K:) it exercises.
const TESTS = `
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'skill-be/testing';

class Fake { constructor() { this.headers = {}; } setHeader(n, v) { this.headers[n.toLowerCase()] = v; } }

test('T:u T:z T:b T:s T:n T:g K:call K:ret', ({ echo }) => {
  for (const v of [undefined, null, true, false, 'a\\n"b', 1.5, 0, NaN, Infinity, -Infinity, 10n ** 30n]) assert.deepEqual(echo(v), v);
  assert.ok(Object.is(echo(-0), -0));
});
test('T:y', ({ echo }) => {
  assert.equal(echo(Symbol.iterator), Symbol.iterator);
  assert.equal(echo(Symbol.for('skill-be.x')), Symbol.for('skill-be.x'));
  assert.equal(echo(Symbol('mine')).description, 'mine');
});
test('T:I T:B', ({ echo, isOwn, plain }) => {
  for (const v of [Math, JSON, Object.prototype, Array.prototype.map, Promise, Function, Reflect.apply, Function.prototype.call]) {
    assert.equal(isOwn(v), true); // the answer got its own built-in of that name
    assert.notEqual(echo(v), v); // and what it hands back is its own, as a proxy: never the runner's
  }
  assert.equal(echo(Math).max(1, 2), 2);
  assert.equal(Object.getPrototypeOf(echo(Math)), Object.prototype); // a language prototype: the runner's own
  const got = plain();
  assert.ok(got.list instanceof Array && got.err instanceof Error);
  assert.deepEqual(got, { list: [1, 2], err: got.err });
});
test('T:R', ({ echo }) => { const o = {}; const f = () => 1; assert.equal(echo(o), o); assert.equal(echo(f), f); });
test('T:D T:X T:M T:S T:A T:T T:E', ({ echo }) => {
  assert.deepEqual(echo(new Date(5)), new Date(5));
  assert.deepEqual(echo(/a+b/gi), /a+b/gi);
  assert.deepEqual(echo(new Map([[1, 'x']])), new Map([[1, 'x']]));
  assert.deepEqual(echo(new Set(['y'])), new Set(['y']));
  assert.deepEqual(new Uint8Array(echo(new Uint8Array([1, 2]).buffer)), new Uint8Array([1, 2]));
  assert.deepEqual(echo(new Uint16Array([7, 8])), new Uint16Array([7, 8]));
  assert.deepEqual(echo(Buffer.from('hi')), Buffer.from('hi'));
  const err = echo(new RangeError('far'));
  assert.ok(err instanceof RangeError);
  assert.equal(err.message, 'far');
});
test('T:P K:settle', async ({ later }) => { assert.equal(await later(7), 7); });
test('T:O K:get K:set K:has K:del K:keys K:desc K:define K:proto', ({ make }) => {
  const o = make();
  assert.equal(o.a, 1);
  o.b = 2;
  assert.equal(o.b, 2);
  assert.ok('a' in o);
  delete o.a;
  assert.ok(!('a' in o));
  Object.defineProperty(o, 'c', { value: 3, enumerable: true, configurable: true, writable: true });
  assert.deepEqual(Object.keys(o), ['list', 'Box', 'b', 'c']);
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
  assert.deepEqual(o.list, [1, 2]);
  assert.equal(new o.Box(4).v, 4);
});
test('K:ev', () => {}); // init, loaded: every answer

test('no prototype of the runner reaches the answer', ({ probe }) => {
  const report = probe(new Fake(), new EventEmitter());
  for (const [k, v] of Object.entries(report)) assert.equal(v, true, k);
  assert.equal(Fake.prototype.evil, undefined);
  assert.equal(EventEmitter.prototype.evil, undefined);
});
test('receivers stay the runner\\'s', ({ poke }) => {
  const fake = new Fake();
  poke(fake);
  assert.deepEqual(fake.headers, { then: 'x', y: 2 });
  assert.equal(Object.prototype.then, undefined);
  assert.equal(Object.getOwnPropertyNames(Object.prototype).includes('then'), false);
});
test('the realm is frozen', () => {
  for (const o of [Object.prototype, Function.prototype, Array.prototype, Promise.prototype, Error.prototype, Object, Promise])
    assert.ok(Object.isFrozen(o));
  assert.ok(!Object.isExtensible(EventEmitter.prototype));
  assert.throws(() => { EventEmitter.prototype.emit = () => {}; }, TypeError);
  // Node's accessors on functions and prototypes are fixed too; the objects with state take no new property.
  for (const [o, k] of [[Buffer, Symbol.species], [URL.prototype, 'href'], [Event.prototype, 'type']])
    assert.equal(Object.getOwnPropertyDescriptor(o, k).configurable, false, String(k));
  for (const o of [globalThis, process, console, performance]) assert.ok(!Object.isExtensible(o));
  class E extends Error { constructor() { super('m'); this.name = 'E'; } }
  assert.equal(new E().name, 'E'); // instances still set what their prototypes have
});
`;

const ANSWER = `
export const result = 1;
export const echo = (v) => v;
export const isOwn = (v) => [Math, JSON, Object.prototype, Array.prototype.map, Promise, Function, Reflect.apply, Function.prototype.call].includes(v);
export const plain = () => ({ list: [1, 2], err: new Error('x') });
export const later = (v) => new Promise((ok) => setTimeout(() => ok(v), 5));
export const make = () => ({ a: 1, list: [1, 2], Box: class { constructor(v) { this.v = v; } } });
export const probe = (fake, emitter) => {
  const out = {};
  out.protoIsOwn = Object.getPrototypeOf(fake) === Object.prototype;
  out.emitterProtoIsOwn = Object.getPrototypeOf(emitter) === Object.prototype;
  out.dunderIsOwn = fake.__proto__ === Object.prototype;
  out.noConstructor = fake.constructor === undefined && emitter.constructor === undefined;
  out.functionProtoIsOwn = Object.getPrototypeOf(fake.setHeader) === Function.prototype;
  out.functionConstructorIsOwn = fake.setHeader.constructor === Function;
  out.noPrototypeKey = !Object.getOwnPropertyNames(fake).includes('constructor');
  let refused = 0;
  for (const f of [() => { fake.setHeader.evil = 1; }, () => { emitter.on.evil = 1; },
                   () => { Object.getPrototypeOf(emitter).evil = 1; }]) {
    try { f(); } catch { refused += 1; }
  }
  out.functionsRefuseWrites = refused >= 2;
  out.ownRealmOnly = Object.prototype.evil === 1 ? (delete Object.prototype.evil, true) : true;
  return out;
};
export const poke = (fake) => {
  const set = fake.setHeader;
  try { set.call({ headers: Object.prototype }, 'Then', 'x'); } catch {}
  set('Y', 2);
};
`;

test('every tag and message kind is exercised', () => {
  const named = TESTS.match(/test\('([^']*)'/g).join(' ');
  for (const tag of Object.keys(TAGS)) assert.ok(named.includes(`T:${tag}`), `tag ${tag} has no test`);
  for (const kind of Object.keys(KINDS)) assert.ok(named.includes(`K:${kind}`), `kind ${kind} has no test`);
});

test('the codec round-trips and the runner holds its invariants', () => {
  const run = runAnswer(TESTS, ANSWER);
  assert.deepEqual(failures(run), []);
});

test('control: without fixed receivers the answer chooses `this`', () => {
  const run = runAnswer(TESTS, ANSWER, { weaken: ['receiver', 'freeze'] });
  assert.equal(run.results["receivers stay the runner's"].passed, false);
  assert.equal(run.results['no prototype of the runner reaches the answer'].passed, false);
});

test('control: without lockdown the realm is not frozen', () => {
  const run = runAnswer(TESTS, ANSWER, { weaken: ['freeze'] });
  assert.equal(run.results['the realm is frozen'].passed, false);
  assert.equal(run.results["receivers stay the runner's"].passed, true); // the receivers alone hold
});
