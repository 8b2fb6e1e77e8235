// The membrane between the runner, which keeps the tests and their verdicts, and the answer's own
// process (host.mjs), which runs under another uid where the machine allows it.
//
// Each side sees the other's values through this module alone (the wire format is in wire.mjs, the
// codec in codec.mjs, the transport in transport.mjs). A value that crosses by reference becomes, on
// the receiving side, a proxy whose every operation (call, new, get, set, keys, prototype) is a
// synchronous request to the owner, so a test calls the answer's function exactly as if it were
// local, sync or async, and the answer calls back the test's fakes the same way.
//
// The runner's side is guarded (unless a test's control switches it off): what it serves on its own
// objects can never hand the answer a prototype of the runner's realm or choose the receiver of a
// runner function.
//   * A runner function read from a runner object (`emitter.on`, `fake.setHeader`) is exported with
//     that object as its holder, and every call of it through the membrane runs with the holder as
//     `this`, whatever receiver the answer sends; a function passed on its own runs with `undefined`.
//   * `getPrototypeOf` of a runner object answers the first built-in on its prototype chain (the
//     answer's side takes its own), never the runner's class prototypes; `__proto__`, `constructor`
//     and `prototype` read as that built-in or undefined; a property whose value is a prototype
//     object reads as undefined; runner functions and prototypes refuse set, define and delete;
//   * set and define never store one of the runner's built-ins (which the codec never decodes from
//     the answer's side in the first place: codec.mjs).
// The runner's realm is frozen besides (lockdown.mjs).
import { createTransport, frame, MAX_FRAME } from './transport.mjs';
import { createCodec, ProtocolError } from './codec.mjs';
import { createProxies } from './proxies.mjs';
import { INTRINSICS } from './intrinsics.mjs';
import { REQUESTS } from './wire.mjs';

export { MAX_FRAME, ProtocolError };
export class PeerGone extends Error {}

const stringify = JSON.stringify;
const parse = JSON.parse;
const apply = Reflect.apply;
const promiseThen = Promise.prototype.then; // taken before any other code of this process runs
const HIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

// An object some other object inherits from (it has an own `constructor` whose `prototype` is it).
function isPrototypeObject(v) {
  if ((typeof v !== 'object' || v === null) && typeof v !== 'function') return false;
  try {
    const d = Reflect.getOwnPropertyDescriptor(v, 'constructor');
    return d !== undefined && 'value' in d && typeof d.value === 'function' && d.value.prototype === v;
  } catch {
    return true;
  }
}

// The first built-in on v's prototype chain, or null.
function builtinProto(v) {
  for (let p = Reflect.getPrototypeOf(v); p !== null; p = Reflect.getPrototypeOf(p)) {
    if (INTRINSICS.names.has(p)) return p;
  }
  return null;
}

/** What the runner's side serves on its own value `target` for request msg (guarded). */
function serveGuarded(target, holder, msg, { decList, decKey, dec, decDesc }) {
  const key = msg.key === undefined ? undefined : decKey(msg.key);
  const readOnly = typeof target === 'function' || isPrototypeObject(target);
  switch (msg.k) {
    case 'call':
      return msg.n ? Reflect.construct(target, decList(msg.a)) : apply(target, holder, decList(msg.a));
    case 'proto':
      return builtinProto(target);
    case 'get': {
      if (HIDDEN_KEYS.has(key)) return key === '__proto__' ? builtinProto(target) : hiddenValue(target, key);
      const value = Reflect.get(target, key);
      return isPrototypeObject(value) && !INTRINSICS.names.has(value) ? undefined : value;
    }
    case 'desc': {
      if (HIDDEN_KEYS.has(key)) return undefined;
      return Reflect.getOwnPropertyDescriptor(target, key);
    }
    case 'set':
    case 'define':
    case 'del':
      if (readOnly || HIDDEN_KEYS.has(key)) throw new TypeError('the tests\' functions and prototypes cannot be changed');
      if (msg.k === 'set') return Reflect.set(target, key, stored(dec(msg.v)));
      if (msg.k === 'define') return Reflect.defineProperty(target, key, storedDesc(decDesc(dec(msg.v))));
      return Reflect.deleteProperty(target, key);
    case 'has':
      return Reflect.has(target, key);
    case 'keys':
      return Reflect.ownKeys(target).filter((k) => !HIDDEN_KEYS.has(k));
  }
  throw new TypeError(`unknown request ${String(msg.k).slice(0, 20)}`);
}

// What the answer stores in a runner object is never one of the runner's built-ins. The codec never
// decodes one from the answer's side; this checks it again where a store would keep it.
function stored(value) {
  if (INTRINSICS.names.has(value)) throw new TypeError("a built-in of the runner's cannot be stored by the answer");
  return value;
}

function storedDesc(d) {
  for (const f of ['value', 'get', 'set']) if (f in d) stored(d[f]);
  return d;
}

// `constructor` and `prototype` of a runner value: only a built-in (the answer takes its own).
function hiddenValue(target, key) {
  const value = Reflect.get(target, key);
  return INTRINSICS.names.has(value) ? value : undefined;
}

/** What a side serves on its own value, unguarded: the answer's side, and the runner's in a control. */
function serveOpen(target, msg, { decList, decKey, dec, decDesc }) {
  const key = msg.key === undefined ? undefined : decKey(msg.key);
  switch (msg.k) {
    case 'call':
      return msg.n ? Reflect.construct(target, decList(msg.a)) : apply(target, dec(msg.this), decList(msg.a));
    case 'get':
      return Reflect.get(target, key);
    case 'set':
      return Reflect.set(target, key, dec(msg.v));
    case 'has':
      return Reflect.has(target, key);
    case 'del':
      return Reflect.deleteProperty(target, key);
    case 'keys':
      return Reflect.ownKeys(target);
    case 'desc':
      return Reflect.getOwnPropertyDescriptor(target, key);
    case 'define':
      return Reflect.defineProperty(target, key, decDesc(dec(msg.v)));
    case 'proto':
      return Reflect.getPrototypeOf(target);
  }
  throw new TypeError(`unknown request ${String(msg.k).slice(0, 20)}`);
}

class Endpoint {
  constructor({ side, asyncFd, syncFd, writeFd, onEvent, guarded, keepAlive, openNames }) {
    this.seq = 0;
    this.gone = null; // why the other side can no longer answer
    this.replies = new Map();
    this.pending = new Set(); // ids of my requests still waiting: a reply to any other id is dropped
    this.onEvent = onEvent;
    this.guarded = guarded;
    this.ctx = {
      runner: side === 'runner',
      guarded,
      openNames: side === 'runner' ? openNames : null,
      exported: new Map(), // my id -> {v, holder}
      exportIds: new Map(), // my value -> Map(holder -> id)
      importId: new WeakMap(), // my proxy -> their id
      fromPeer: new WeakSet(), // copies made of the other side's values
      exportValue: (v, holder) => this.exportValue(v, holder),
      exportPromise: (p) => this.exportPromise(p),
    };
    this.codec = createCodec(this.ctx);
    this.proxies = createProxies(this.ctx, this.codec, (msg, decode) => this.request(msg, decode));
    this.transport = createTransport({ asyncFd, syncFd, writeFd, keepAlive, onFrame: (raw) => this.dispatch(raw) });
  }

  // A runner function is exported once per holder: its calls run with that holder as `this`.
  exportValue(value, holder) {
    const held = this.guarded && typeof value === 'function' ? holder : undefined;
    let byHolder = this.ctx.exportIds.get(value);
    if (byHolder === undefined) {
      byHolder = new Map();
      this.ctx.exportIds.set(value, byHolder);
    }
    let id = byHolder.get(held);
    if (id === undefined) {
      id = this.ctx.exported.size + 1;
      this.ctx.exported.set(id, { v: value, holder: held });
      byHolder.set(held, id);
    }
    return id;
  }

  send(msg) {
    let bytes;
    try {
      bytes = frame(stringify(msg));
    } catch (err) {
      throw new RangeError(String(err?.message ?? err));
    }
    if (!this.transport.send(bytes)) {
      this.markGone('the other process is gone');
      throw new PeerGone(this.gone);
    }
  }

  // The other side is gone: onEvent hears it once (the runner then stops reporting).
  markGone(why) {
    if (this.gone) return;
    this.gone = why;
    this.onEvent({ e: 'gone', why });
  }

  dispatch(raw) {
    if (typeof raw !== 'string') {
      this.markGone(raw?.tooBig ? `it sent a value over ${MAX_FRAME} bytes` : 'the other process closed the channel');
      return;
    }
    let msg;
    try {
      msg = parse(raw);
    } catch {
      return;
    }
    if (msg === null || typeof msg !== 'object') return;
    if (msg.k === 'ret') {
      if (this.pending.has(msg.id) && !this.replies.has(msg.id)) this.replies.set(msg.id, msg);
    } else if (msg.k === 'settle') {
      this.proxies.settle(msg);
    } else if (msg.k === 'ev') {
      this.onEvent(msg);
    } else if (REQUESTS.has(msg.k)) {
      this.serve(msg);
    }
  }

  wait(done) {
    while (!done()) {
      if (this.gone) throw new PeerGone(this.gone);
      if (!this.transport.step() && !done()) {
        this.markGone('the other process closed the channel');
        throw new PeerGone(this.gone);
      }
    }
  }

  request(msg, decode = this.codec.dec) {
    if (this.gone) throw new PeerGone(this.gone);
    const id = ++this.seq;
    this.pending.add(id);
    let r;
    try {
      this.send({ ...msg, id });
      this.wait(() => this.replies.has(id));
      r = this.replies.get(id);
    } finally {
      this.pending.delete(id);
      this.replies.delete(id);
      this.transport.later();
    }
    if (r.ok === true) return decode(r.v);
    throw this.codec.dec(r.v);
  }

  serve(msg) {
    let ok = true;
    let value;
    let entry;
    try {
      entry = this.ctx.exported.get(msg.t);
      if (entry === undefined) throw new ReferenceError('unknown reference');
      value = this.guarded ? serveGuarded(entry.v, entry.holder, msg, this.codec) : serveOpen(entry.v, msg, this.codec);
    } catch (err) {
      ok = false;
      value = err;
    }
    this.send({ k: 'ret', id: msg.id, ok, v: this.encReply(ok, msg.k, value, entry?.v) });
  }

  // Values read from one of my objects carry it as their holder (the receiver of their calls).
  encReply(ok, kind, value, holder) {
    const { codec } = this;
    try {
      if (!ok) return codec.enc(value);
      if (kind === 'keys') return ['s', stringify(value.map((k) => codec.encKey(k)))];
      if (kind === 'desc') return value === undefined ? ['u'] : ['s', stringify(codec.encDesc(value, holder))];
      return codec.enc(value, 0, kind === 'get' ? holder : undefined);
    } catch (err) {
      return codec.enc(new Error(`the value could not be passed: ${err?.message ?? err}`));
    }
  }

  exportPromise(p) {
    const id = this.exportValue(p);
    const settle = (ok) => (value) => {
      let v;
      try {
        v = this.codec.enc(value);
      } catch (err) {
        ok = false;
        v = this.codec.enc(new Error(`the value could not be passed: ${err?.message ?? err}`));
      }
      try {
        this.send({ k: 'settle', p: id, ok, v });
      } catch {}
    };
    Reflect.apply(promiseThen, p, [settle(true), settle(false)]);
    return id;
  }
}

/**
 * One side of the membrane.
 * side: 'runner' or 'answer'; asyncFd/syncFd: the incoming FIFO, twice (transport.mjs); writeFd: the
 * outgoing one; onEvent(event): application events ({k:'ev'}) from the other side, and {e:'gone'}
 * once the other side can no longer answer; guarded: the runner's protections (this file's header);
 * keepAlive: the channel keeps the process alive; openNames (a test's control only): the names of
 * the answer's built-ins the runner takes as its own (a Set, or true for every name), as it once did.
 */
export function createEndpoint({ side, asyncFd, syncFd, writeFd, onEvent, guarded = side === 'runner', keepAlive = false, openNames = null }) {
  const ep = new Endpoint({ side, asyncFd, syncFd, writeFd, onEvent, guarded, keepAlive, openNames });
  return {
    enc: ep.codec.enc,
    dec: ep.codec.dec,
    send: (msg) => ep.send(msg),
    request: (msg) => ep.request(msg),
    wait: (done) => ep.wait(done),
    pump: ep.transport.pump,
    event: (body) => ep.send({ ...body, k: 'ev' }),
    isGone: () => ep.gone,
    setGone: (why) => ep.markGone(why),
    /** Whether v is (a copy of) a value of the other side: its words are data, never skill-be's. */
    fromPeer: (v) => ep.ctx.fromPeer.has(v) || ep.ctx.importId.has(v),
  };
}
