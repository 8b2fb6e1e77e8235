// The runner's side of the membrane fuzzer: the objects tests commonly hand an answer, each of its
// functions instrumented, and the invariants checked after every sequence, from outside the answer.
// Imported by the fuzzer's test file in the runner (membrane-fuzz.test.mjs writes it), under the
// runner's real protections: frozen realm, guarded membrane, permission model, no code from strings.
import { EventEmitter } from 'node:events';
import { types } from 'node:util';
import { INTRINSICS } from '../../../src/skill_be/codetests/node/intrinsics.mjs';

const REGISTRY = Symbol.for('skill-be.testing.registry');
const { isProxy } = types;
const MEMBRANE_CALL = /^\s+at serve(Guarded|Open) .*membrane\.mjs/; // the frame of a call through the membrane

/** One world per sequence: fresh objects, a log of every call of their functions. */
export function makeWorld() {
  const calls = []; // {fn: its name, self, direct: called through the membrane, constructing, held: self held it}
  function log(fn, f, self, constructing) {
    const direct = MEMBRANE_CALL.test(String(new Error().stack).split('\n')[3] ?? '');
    calls.push({ fn, self, direct, constructing, held: direct && holds(self, f) }); // as it was when called
  }
  class Fake {
    constructor() {
      this.headers = {};
      this.statusCode = 0;
      this.body = '';
    }
    setHeader(name, value) {
      log('setHeader', Fake.prototype.setHeader, this, new.target !== undefined);
      this.headers[String(name).toLowerCase()] = value;
    }
    end(body) {
      log('end', Fake.prototype.end, this, new.target !== undefined);
      this.body = body;
    }
  }
  class Counter {
    constructor() {
      this.items = [];
    }
    add(x) {
      log('add', Counter.prototype.add, this, new.target !== undefined);
      this.items.push(x);
      return this.items.length;
    }
  }
  const res = new Fake();
  const counter = new Counter();
  const req = {
    url: '/sum?a=2&b=3',
    method: 'GET',
    headers: { host: 'example.test' },
    handlers: {},
    on(event, fn) {
      log('req.on', req.on, this, new.target !== undefined);
      this.handlers[String(event)] = fn;
      return this;
    },
  };
  const plain = { a: 1, nested: { b: [1, 2] }, list: [1, 2, 3] };
  plain.touch = function touch(v) {
    log('plain.touch', plain.touch, this, new.target !== undefined);
    this.a = v;
    return this;
  };
  function cb(x) {
    log('cb', cb, this, new.target !== undefined);
    return x;
  }
  const callWith = (f, x) => (typeof f === 'function' ? f(x) : x); // a helper that calls what it is given
  const mapper = (xs, f) => Array.from(xs ?? []).map(typeof f === 'function' ? f : (x) => x);
  const emitter = new EventEmitter();
  emitter.on('ready', cb);
  const handles = [plain, res, req, emitter, counter, cb, callWith, mapper, new Map([['k', 1]]), new Set([1]), Promise.resolve(7), [1, 2, 3]];
  const objects = [plain, plain.nested, plain.nested.b, plain.list, res, res.headers, counter, counter.items, req, req.headers, req.handlers, emitter];
  return { handles, calls, objects, prototypes: [Fake.prototype, Counter.prototype], snapshot: snapshot([Fake.prototype, Counter.prototype]) };
}

const LANGUAGE_PROTOTYPES = [Object.prototype, Function.prototype, Array.prototype, Promise.prototype, Error.prototype, EventEmitter.prototype];

function snapshot(prototypes) {
  const reg = globalThis[REGISTRY];
  return {
    registry: reg,
    tests: reg.tests.map((t) => [t.name, t.fn]),
    keys: [...LANGUAGE_PROTOTYPES, ...prototypes].map((p) => Reflect.ownKeys(p).length),
  };
}

// A prototype object: one with an own `constructor` whose `prototype` is it, or one of those that
// lockdown tamed (their `constructor` is an accessor now, never called here: it might be the answer's).
const TAMED = new Set([EventEmitter.prototype]);
function isPrototypeObject(v) {
  if (TAMED.has(v)) return true;
  const d = Reflect.getOwnPropertyDescriptor(v, 'constructor');
  const c = d !== undefined && 'value' in d ? d.value : undefined;
  return typeof c === 'function' && !isProxy(c) && Reflect.getOwnPropertyDescriptor(c, 'prototype')?.value === v;
}

const isObject = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function';
const runnerBuiltin = (v) => isObject(v) && !isProxy(v) && (INTRINSICS.names.has(v) || isPrototypeObject(v));
const name = (v) => INTRINSICS.names.get(v) ?? (typeof v === 'function' ? `function ${v.name}` : 'a prototype');

/** Every runner built-in or prototype now stored in the world's objects: [path, name]. */
function storedBuiltins(world) {
  const found = [];
  const seen = new Set();
  const visit = (v, path, depth) => {
    if (!isObject(v) || isProxy(v) || seen.has(v) || depth > 6) return;
    seen.add(v);
    for (const key of Reflect.ownKeys(v)) {
      const d = Reflect.getOwnPropertyDescriptor(v, key);
      const at = `${path}.${String(key)}`;
      for (const x of 'value' in d ? [d.value] : [d.get, d.set]) {
        if (runnerBuiltin(x) && !(key === 'prototype' && typeof v === 'function')) found.push([at, name(x)]);
        else visit(x, at, depth + 1);
      }
    }
  };
  for (const [i, o] of world.objects.entries()) visit(o, `world[${i}]`, 0);
  return found;
}

// Whether `self` holds `f` (an own or inherited data property whose value it is): the object a call
// through the membrane takes as `this` is the one the function was read from, never the answer's.
function holds(self, f) {
  for (let o = self; isObject(o) && !isProxy(o); o = Reflect.getPrototypeOf(o)) {
    for (const key of Reflect.ownKeys(o)) {
      const d = Reflect.getOwnPropertyDescriptor(o, key);
      if ('value' in d && d.value === f) return true;
    }
  }
  return false;
}

/** The invariants, after a sequence: a list of what broke (empty when all held). */
export function violations(world) {
  const out = [];
  for (const [at, what] of storedBuiltins(world)) out.push(`the runner's ${what} is stored at ${at}`);
  for (const c of world.calls) {
    if (c.constructing) continue;
    if (isProxy(c.self)) out.push(`${c.fn} ran with one of the answer's objects as this`);
    else if (runnerBuiltin(c.self)) out.push(`${c.fn} ran with the runner's ${name(c.self)} as this`);
    else if (c.direct && c.self !== undefined && !c.held) {
      out.push(`${c.fn}, called through the membrane, ran with a receiver the answer chose`);
    }
  }
  const now = snapshot(world.prototypes);
  const was = world.snapshot;
  if (now.registry !== was.registry || !Object.isFrozen(now.registry) || !Object.isFrozen(now.registry.tests)) out.push('the test registry was replaced or is not frozen');
  else if (now.tests.length !== was.tests.length || now.tests.some(([n, f], i) => n !== was.tests[i][0] || f !== was.tests[i][1])) {
    out.push('the test registry changed');
  }
  if (now.keys.some((k, i) => k !== was.keys[i])) out.push('a prototype of the runner gained or lost a property');
  return out;
}
