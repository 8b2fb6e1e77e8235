// The answer's side of the membrane fuzzer: it plays back, in the answer's process, a sequence of
// what an answer can do with the values the tests handed it (model.mjs generates the sequences in
// the runner). Every step is caught: an attack that fails is not the fuzzer's failure; only the
// invariants the runner checks afterwards (world.mjs) are.
import { types } from 'node:util';
import { INTRINSICS } from '../../../src/skill_be/codetests/node/intrinsics.mjs';
import { lockdown } from '../../../src/skill_be/codetests/node/lockdown.mjs';

const { isPromise, isProxy } = types;
// Its own realm frozen too: a sequence that sets a property on one of the answer's own built-ins
// (which it may: they are its own) would otherwise break the sequences after it, and fast-check's
// runs must not depend on each other. What an answer's realm sends is covered by the forged-frame tests.
lockdown();

const POOL_MAX = 64;
const DEPTH_MAX = 3; // re-entrancy: an answer function the runner calls may play a nested sequence

class Player {
  constructor(handles) {
    this.pool = [...handles];
    this.pending = [];
  }

  keep(v) {
    // A promise it made that rejects is handled: an unhandled rejection would be the answer's failure
    // of the test that runs (runner.mjs), which is what it is, not the membrane's.
    if (isPromise(v) && !isProxy(v)) v.catch(() => {});
    if (this.pool.length < POOL_MAX) this.pool.push(v);
    return v;
  }

  pick(i) {
    return this.pool[Math.abs(Number(i) || 0) % this.pool.length];
  }

  key(k) {
    if (Array.isArray(k) && k[0] === '@@') return Symbol[k[1]];
    return String(k);
  }

  // One value the answer makes or has.
  value(v, depth) {
    const [tag, a, b] = Array.isArray(v) ? v : ['u'];
    switch (tag) {
      case 'num':
      case 'str':
      case 'bool':
        return a;
      case 'null':
        return null;
      case 'big':
        return BigInt(a);
      case 'sym':
        return Symbol[a];
      case 'pool':
        return this.pick(a);
      case 'builtin':
        return INTRINSICS.byName.get(a);
      case 'obj':
        return Object.fromEntries((a ?? []).map(([k, x]) => [this.key(k), this.value(x, depth)]));
      case 'arr':
        return (a ?? []).map((x) => this.value(x, depth));
      case 'fn':
        return this.fn(a, b, depth);
      case 'species':
        return this.species(depth);
      case 'getter':
        return this.getter(a, b, depth);
      case 'proxy':
        return this.proxy(a, b, depth);
      case 'thenable':
        // biome-ignore lint/suspicious/noThenProperty: a thenable is what this value is for
        return { then: (ok) => ok(this.value(a, depth)) };
      case 'error':
        return new TypeError(String(a));
    }
    return undefined;
  }

  // An answer function: what it does when the runner calls it (returns, throws, plays more steps).
  fn(kind, more, depth) {
    const player = this;
    return function answerFn(...args) {
      for (const x of args) player.keep(x);
      player.keep(this);
      switch (kind) {
        case 'this':
          return this;
        case 'throw':
          throw new Error('thrown by the answer');
        case 'throw-value':
          throw player.value(more, depth);
        case 'reenter':
          if (depth < DEPTH_MAX) player.steps(more ?? [], depth + 1);
          return args[0];
        default:
          return args[0];
      }
    };
  }

  // A constructor whose @@species collects what a runner's array method would make with it.
  species() {
    const player = this;
    class Collected {
      constructor() {
        player.keep(this);
      }
    }
    function Ctor() {}
    Ctor[Symbol.species] = Collected;
    return Ctor;
  }

  getter(kind, more, depth) {
    const player = this;
    return {
      get value() {
        if (kind === 'throw') throw new Error('a getter of the answer throws');
        if (kind === 'reenter' && depth < DEPTH_MAX) player.steps(more ?? [], depth + 1);
        player.keep(this);
        return player.value(more, depth);
      },
    };
  }

  // A proxy of the answer's own, whose traps throw, hand out the pool, or play more steps.
  proxy(kind, more, depth) {
    const trap = (name) => (...args) => {
      for (const x of args) this.keep(x);
      if (kind === 'throw') throw new Error(`trap ${name}`);
      if (kind === 'reenter' && depth < DEPTH_MAX) this.steps(more ?? [], depth + 1);
      return Reflect[name](...args);
    };
    const traps = {};
    for (const name of ['get', 'set', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'defineProperty', 'getPrototypeOf', 'apply', 'construct']) {
      traps[name] = trap(name);
    }
    return new Proxy(function target() {}, traps);
  }

  step(s, depth) {
    const [op, t, k, x] = s;
    const target = () => (Array.isArray(t) ? this.value(t, depth) : this.pick(t));
    const args = (list) => (Array.isArray(list) ? list.map((v) => this.value(v, depth)) : []);
    switch (op) {
      case 'get':
        return this.keep(target()[this.key(k)]);
      case 'set':
        target()[this.key(k)] = this.value(x, depth);
        return;
      case 'define': {
        const [kind, v, w] = Array.isArray(x) ? x : [];
        const desc =
          kind === 'accessor'
            ? { get: this.value(v, depth), set: this.value(w, depth), configurable: true }
            : { value: this.value(v, depth), writable: true, enumerable: true, configurable: true };
        Reflect.defineProperty(target(), this.key(k), desc);
        return;
      }
      case 'delete':
        return delete target()[this.key(k)];
      case 'has':
        return this.key(k) in target();
      case 'keys':
        return this.keep(Reflect.ownKeys(target()));
      case 'desc':
        return this.keep(Reflect.getOwnPropertyDescriptor(target(), this.key(k)));
      case 'proto':
        return this.keep(Object.getPrototypeOf(target()));
      case 'call':
        return this.keep(Reflect.apply(target(), this.value(k, depth), args(x)));
      case 'new':
        return this.keep(Reflect.construct(target(), args(x)));
      case 'invoke': {
        const o = target();
        return this.keep(o[this.key(k)](...args(x)));
      }
      case 'then': {
        const p = Promise.resolve(target()).then(
          (v) => this.keep(v),
          (e) => this.keep(e),
        );
        this.pending.push(p);
        return;
      }
    }
  }

  steps(list, depth) {
    for (const s of list) {
      try {
        this.step(s, depth);
      } catch (err) {
        this.keep(err); // what the runner threw is one more value to try (keep touches nothing of it)
      }
    }
  }
}

/** Plays `sequence` (JSON) against the values the tests handed over; settles once it is done. */
export async function play(handles, sequence) {
  const player = new Player(Array.isArray(handles) ? handles : [handles]);
  player.steps(JSON.parse(String(sequence)), 0);
  await Promise.allSettled(player.pending);
  await new Promise((resolve) => setTimeout(resolve, 0)); // what the runner's callbacks left to do
  return player.pool.length;
}
