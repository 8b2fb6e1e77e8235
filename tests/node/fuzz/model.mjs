// The membrane fuzzer's model: fast-check arbitraries for sequences of what an answer can do (get,
// set, define, delete, has, keys, descriptors, prototypes, call, construct, method calls, `then`),
// with values it can make (primitives, its own built-ins by name, objects, arrays, functions that
// return, throw or re-enter, @@species constructors, getters, proxies, thenables, errors) or got.
// The sequences are plain data: interpreter.mjs plays them in the answer's process.

// Keys worth trying on the objects tests hand over, and on the runner's own built-ins.
const KEYS = [
  'a', 'nested', 'list', 'headers', 'body', 'statusCode', 'url', 'handlers', 'items', 'then', 'constructor',
  'prototype', '__proto__', '_events', '_eventsCount', 'on', 'once', 'emit', 'listeners', 'rawListeners',
  'removeAllListeners', 'setHeader', 'end', 'add', 'touch', 'call', 'apply', 'bind', 'length', '0', '1',
  'toString', 'valueOf', 'next', 'value', 'ready', 'x',
];
// The methods of the objects tests hand over that keep what they are given (world.mjs).
const STORING = ['on', 'once', 'addListener', 'prependListener', 'setHeader', 'end', 'add', 'touch'];
const SYMBOLS = ['species', 'iterator', 'toPrimitive', 'hasInstance', 'toStringTag', 'asyncIterator'];
// Built-ins whose runner twin would be a capability (the ones the EventEmitter chain used first).
const BUILTINS = [
  'Reflect.apply', 'Reflect.set', 'Reflect.defineProperty', 'Reflect.get', 'Reflect.construct', 'Function',
  'Function.prototype', 'Function.prototype.call', 'Function.prototype.apply', 'Function.prototype.bind',
  'Object.prototype', 'Object.defineProperty', 'Object.assign', 'Object.setPrototypeOf', 'Array.prototype',
  'Array.prototype.map', 'Array.prototype.push', 'Array.from', 'Promise', 'Promise.prototype.then', 'JSON.parse',
  'Error', 'Error.captureStackTrace', 'Math', 'Buffer', 'Symbol.for',
];

/** fc: the fast-check module; allNames: every built-in name of the answer's side (intrinsics.mjs). */
export function sequences(fc, allNames, { maxLength = 20 } = {}) {
  const key = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...KEYS) },
    { weight: 1, arbitrary: fc.constantFrom(...SYMBOLS).map((s) => ['@@', s]) },
    { weight: 1, arbitrary: fc.string({ maxLength: 3 }) },
  );
  // Mostly the objects the tests handed over (the first 12 of the pool), sometimes what came after.
  const index = fc.oneof({ weight: 3, arbitrary: fc.nat(11) }, { weight: 1, arbitrary: fc.nat(63) });
  const poolRef = index.map((i) => ['pool', i]);
  const builtin = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...BUILTINS) },
    { weight: 1, arbitrary: fc.constantFrom(...allNames) },
  ).map((n) => ['builtin', n]);
  const primitive = fc.oneof(
    fc.integer().map((n) => ['num', n]),
    fc.string({ maxLength: 4 }).map((s) => ['str', s]),
    fc.boolean().map((b) => ['bool', b]),
    fc.constant(['null']),
    fc.constant(['u']),
    fc.constantFrom(...SYMBOLS).map((s) => ['sym', s]),
  );
  const stored = fc.oneof({ weight: 1, arbitrary: builtin }, { weight: 1, arbitrary: poolRef }, { weight: 1, arbitrary: primitive });
  const { value, step } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 4, arbitrary: poolRef },
      { weight: 3, arbitrary: builtin },
      { weight: 2, arbitrary: primitive },
      { weight: 1, arbitrary: fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map((e) => ['obj', e]) },
      { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }).map((e) => ['arr', e]) },
      { weight: 2, arbitrary: fc.constantFrom('return', 'this', 'throw').map((k) => ['fn', k]) },
      { weight: 1, arbitrary: tie('value').map((v) => ['fn', 'throw-value', v]) },
      { weight: 1, arbitrary: fc.array(tie('step'), { maxLength: 2 }).map((s) => ['fn', 'reenter', s]) },
      { weight: 1, arbitrary: fc.constant(['species']) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('value', 'throw'), tie('value')).map(([k, v]) => ['getter', k, v]) },
      { weight: 1, arbitrary: fc.array(tie('step'), { maxLength: 2 }).map((s) => ['getter', 'reenter', s]) },
      { weight: 1, arbitrary: fc.constantFrom('throw', 'pass').map((k) => ['proxy', k]) },
      { weight: 1, arbitrary: fc.array(tie('step'), { maxLength: 2 }).map((s) => ['proxy', 'reenter', s]) },
      { weight: 1, arbitrary: tie('value').map((v) => ['thenable', v]) },
      { weight: 1, arbitrary: fc.constant(['error', 'e']) },
    ),
    step: fc.oneof(
      { depthSize: 'small' },
      { weight: 4, arbitrary: fc.tuple(fc.constant('get'), index, key) },
      { weight: 4, arbitrary: fc.tuple(fc.constant('set'), index, key, tie('value')) },
      { weight: 2, arbitrary: fc.tuple(fc.constant('define'), index, key, fc.tuple(fc.constantFrom('data', 'accessor'), tie('value'), tie('value'))) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('delete'), index, key) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('has', 'desc'), index, key) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('keys', 'proto', 'then'), index) },
      { weight: 3, arbitrary: fc.tuple(fc.constant('call'), index, tie('value'), fc.array(tie('value'), { maxLength: 4 })) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('new'), index, fc.constant(null), fc.array(tie('value'), { maxLength: 3 })) },
      { weight: 6, arbitrary: fc.tuple(fc.constant('invoke'), index, key, fc.array(tie('value'), { maxLength: 4 })) },
      // What an answer most often does with what it was handed: call its methods that keep a value.
      { weight: 4, arbitrary: fc.tuple(fc.constant('invoke'), fc.nat(4), fc.constantFrom(...STORING), fc.tuple(key, stored)) },
    ),
  }));
  void value;
  return fc.array(step, { minLength: 1, maxLength });
}
