// The membrane's wire format, in one place: the tag of every encoded value and every message kind.
// tests/node/membrane.test.mjs round-trips each of them; membrane.mjs and codec.mjs use these names.

/** Encoded values: [tag, ...fields]. */
export const TAGS = Object.freeze({
  u: 'undefined',
  z: 'null',
  b: 'boolean: [b, true|false]',
  s: 'string: [s, text]',
  n: 'number: [n, value | "NaN" | "Infinity" | "-Infinity" | "-0"]',
  g: 'bigint: [g, decimal text]',
  y: 'symbol: [y, w, well-known name] | [y, r, registry key] | [y, u, id, description]',
  I: "one of the runner's built-ins, runner -> answer only: [I, name]; the answer's side takes its own",
  B: "one of the answer's built-ins, answer -> runner only, by reference: [B, name, id, f|a|o, name, length, hasPrototype]; the runner gets a proxy of it, never its own (but for a language prototype as the answer of getPrototypeOf)",
  R: 'one of the receiving side\'s own values coming back: [R, its id]',
  D: 'a date, copied: [D, time]',
  X: 'a regular expression, copied: [X, source, flags]',
  M: 'a map, copied: [M, [[key, value]...]]',
  S: 'a set, copied: [S, [value...]]',
  A: 'an ArrayBuffer, copied: [A, base64]',
  T: 'a typed array or Buffer, copied: [T, kind, base64]',
  E: 'an error, copied: [E, {name, message, stack, props, cause, errors}]',
  P: 'a promise, by reference: [P, id]; settled later by a settle message',
  O: 'any other object or function, by reference: [O, id, f|a|o, name, length, hasPrototype, preview]',
});

/** Messages: {k: kind, ...}. Requests carry an id and get one ret. */
export const KINDS = Object.freeze({
  call: 'a request: call (or, with n, construct) the target t with the arguments a',
  get: 'a request: the property key of target t',
  set: 'a request: set the property key of target t to v',
  has: 'a request: whether target t has the property key',
  del: 'a request: delete the property key of target t',
  keys: 'a request: the own keys of target t',
  desc: 'a request: the own property descriptor of key on target t',
  define: 'a request: define the property key on target t',
  proto: 'a request: the prototype of target t',
  ret: 'the reply to request id: ok and the value v',
  settle: 'the promise p settled: ok and the value v',
  ev: 'an application event (e: init, loaded, load-error, fatal, uncaught)',
});

export const REQUESTS = new Set(['call', 'get', 'set', 'has', 'del', 'keys', 'desc', 'define', 'proto']);

/** Events on the membrane, between the runner and the answer's process. */
export const EVENTS = Object.freeze({
  init: "runner -> answer's process: {dir, answer}: write the answer and load it",
  loaded: "answer's process -> runner: {fields: [[name, value]...]}",
  'load-error': "answer's process -> runner: {error} or {noResult: true}",
  fatal: "answer's process -> runner: {message}; always the answer's failure, never skill-be's error",
  uncaught: "answer's process -> runner: {error}: an uncaught error there, which fails the running test",
});

/** Lines the runner writes on stdout for skill-be (codetests/protocol.py reads them). */
export const RUNNER_EVENTS = Object.freeze(['pong', 'names', 'loaded', 'load-error', 'fatal', 'start', 'result', 'end']);

/** The fields of the request skill-be writes on the runner's stdin (codetests/protocol.py). */
export const REQUEST_FIELDS = Object.freeze([
  'nonce', 'base', 'test', 'answer', 'testTimeoutMs', 'run', 'uid', 'nproc', 'inRealm', 'wrap',
]);
