// The membrane between the runner, which keeps the tests and their verdicts, and the answer's own
// process (host.mjs), which runs under another uid where the machine allows it.
//
// Each side sees the other's values through this module alone. Primitives, errors, dates, regular
// expressions, maps, sets and byte arrays cross as copies; functions, promises, arrays and other
// objects cross by reference: the receiving side gets a proxy whose every operation (call, new, get,
// set, keys, prototype) is a synchronous request to the owner, so a test calls the answer's function
// exactly as if it were local, sync or async, and the answer calls back the test's fakes the same way.
// The built-ins of JavaScript never cross: each side gets its own (`Array.prototype.map` on one side
// is `Array.prototype.map` on the other), so no code of one side ever runs in the other's realm.
//
// Transport: two FIFOs, one each way, framed as 4-byte big-endian length + JSON. A worker thread
// reads the incoming FIFO with blocking reads and hands each frame to the main thread through a
// MessagePort; the main thread waits for a reply with Atomics.wait and takes frames with
// receiveMessageOnPort, so a request can block the caller (a synchronous call) while the frames
// that arrive meanwhile (the other side calling back) are served in order.
import { Worker, MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { writeSync, readFileSync } from 'node:fs';
import { types } from 'node:util';

export const MAX_FRAME = 16 * 1024 * 1024; // one value larger than this ends the answer's process
const COPY_DEPTH = 16; // errors and collections copied deeper than this cross by reference
const DECODE_DEPTH = 200;
const PREVIEW_DEPTH = 3;
const FRAMES_AHEAD = 8; // frames read ahead of the main thread: at most 8 x MAX_FRAME held
const PREVIEW_KEYS = 50;

// ---- the intrinsics: each side's own built-ins stand for the other's -------------------------
function intrinsicTable() {
  const names = new Map();
  const roots = [
    'Object', 'Function', 'Array', 'Number', 'Boolean', 'String', 'Symbol', 'BigInt', 'Date', 'Promise',
    'RegExp', 'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError',
    'TypeError', 'URIError', 'JSON', 'Math', 'Reflect', 'Proxy', 'Map', 'Set', 'WeakMap', 'WeakSet',
    'WeakRef', 'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Atomics', 'Int8Array', 'Uint8Array',
    'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array',
    'Float64Array', 'BigInt64Array', 'BigUint64Array', 'parseInt', 'parseFloat', 'isNaN', 'isFinite',
    'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI', 'Buffer', 'Intl',
  ];
  const add = (value, name) => {
    if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
      if (!names.has(value)) names.set(value, name);
    }
  };
  const walk = (value, name) => {
    add(value, name);
    for (const key of Reflect.ownKeys(value)) {
      const d = Reflect.getOwnPropertyDescriptor(value, key);
      const k = typeof key === 'symbol' ? `@${key.description}` : key;
      if ('value' in d) add(d.value, `${name}.${k}`);
      if (d.get) add(d.get, `${name}.get ${k}`);
      if (d.set) add(d.set, `${name}.set ${k}`);
    }
  };
  for (const root of roots) {
    const value = globalThis[root];
    if (value === undefined) continue;
    walk(value, root);
    if (typeof value === 'function' && value.prototype) walk(value.prototype, `${root}.prototype`);
  }
  const hidden = {
    TypedArray: Object.getPrototypeOf(Uint8Array),
    ArrayIterator: Object.getPrototypeOf([][Symbol.iterator]()),
    MapIterator: Object.getPrototypeOf(new Map()[Symbol.iterator]()),
    SetIterator: Object.getPrototypeOf(new Set()[Symbol.iterator]()),
    StringIterator: Object.getPrototypeOf(''[Symbol.iterator]()),
    Iterator: Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())),
    AsyncFunction: Object.getPrototypeOf(async () => {}).constructor,
    GeneratorFunction: Object.getPrototypeOf(function* () {}).constructor,
    AsyncGeneratorFunction: Object.getPrototypeOf(async function* () {}).constructor,
    Generator: Object.getPrototypeOf(function* () {}).prototype,
    AsyncGenerator: Object.getPrototypeOf(async function* () {}).prototype,
  };
  for (const [name, value] of Object.entries(hidden)) {
    walk(value, `%${name}%`);
    if (typeof value === 'function' && value.prototype) walk(value.prototype, `%${name}%.prototype`);
  }
  const byName = new Map();
  for (const [value, name] of names) byName.set(name, value);
  return { names, byName };
}

// Taken when this module loads: in the answer's process, before the answer's code runs.
const INTRINSICS = intrinsicTable();
const WELL_KNOWN = new Map(
  Object.getOwnPropertyNames(Symbol)
    .filter((k) => typeof Symbol[k] === 'symbol')
    .map((k) => [Symbol[k], k]),
);
// The built-ins that turn strings into code.
const COMPILERS = new Set(['Function', '%AsyncFunction%', '%GeneratorFunction%', '%AsyncGeneratorFunction%']);
const TYPED = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];
const ERRORS = {
  Error, TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError, AggregateError,
};
const { isPromise, isNativeError, isDate, isRegExp, isMap, isSet, isArrayBuffer, isTypedArray, isProxy } = types;
const dateTime = Date.prototype.getTime;
const regexpSource = Object.getOwnPropertyDescriptor(RegExp.prototype, 'source').get;
const regexpFlags = Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags').get;
const mapEntries = Map.prototype.entries;
const setValues = Set.prototype.values;
const stringify = JSON.stringify;
const parse = JSON.parse;
const apply = Reflect.apply;

export class PeerGone extends Error {}
export class ProtocolError extends Error {}

export function readStat(pid) {
  // [state, wait status] of a process, from /proc: a dead child stays a zombie while nobody reaps it.
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return [fields[0], Number(fields[fields.length - 1])];
  } catch {
    return ['X', 0];
  }
}

/**
 * One side of the membrane.
 * readFd/writeFd: the FIFOs; onEvent(event): application events ({k:'ev'}) from the other side;
 * peerAlive(): false once the other side is known dead (checked while waiting).
 */
export function createEndpoint({ side, readFd, writeFd, wakeFd, onEvent, peerAlive = () => true, keepAlive = false }) {
  // The runner's side never gets one of its own code-compiling constructors from the answer's side
  // (its strings would run in the runner's realm): the answer's side sends its own by reference.
  const runner = side === 'runner';
  const cell = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL('./reader.mjs', import.meta.url), {
    workerData: { fd: readFd, port: port2, cell: cell.buffer, max: MAX_FRAME, ahead: FRAMES_AHEAD },
    transferList: [port2],
  });
  worker.unref();
  // process.exit joins the worker threads, and this one may be blocked in a read: at exit, write a
  // frame header over the limit into the FIFO it reads (wakeFd is a write end of it), and it ends.
  process.on('exit', () => {
    try {
      writeSync(wakeFd, Buffer.from([255, 255, 255, 255]));
    } catch {}
  });
  let seq = 0;
  let gone = null; // why the other side can no longer answer
  const replies = new Map();
  const pending = new Set(); // ids of my requests still waiting: a reply to any other id is dropped
  const settlers = new Map(); // their promise id -> {resolve, reject}
  const exported = new Map(); // my id -> my value
  const exportId = new Map(); // my value -> my id
  const imported = new Map(); // their id -> my proxy
  const importId = new WeakMap(); // my proxy -> their id
  const symbols = new Map(); // their symbol id -> my stand-in
  const symbolId = new Map(); // my symbol -> my id

  function send(msg) {
    const body = Buffer.from(stringify(msg), 'utf8');
    if (body.length > MAX_FRAME) throw new RangeError(`a value over ${MAX_FRAME} bytes cannot be passed`);
    const frame = Buffer.allocUnsafe(4 + body.length);
    frame.writeUInt32BE(body.length, 0);
    body.copy(frame, 4);
    let at = 0;
    while (at < frame.length) {
      try {
        at += writeSync(writeFd, frame, at, frame.length - at);
      } catch (err) {
        if (err?.code === 'EAGAIN') continue;
        markGone('the other process is gone');
        throw new PeerGone(gone);
      }
    }
  }

  // The other side is gone: onEvent hears it once (the runner then ends as the answer's process did).
  function markGone(why) {
    if (gone) return;
    gone = why;
    onEvent({ e: 'gone', why });
  }

  function dispatch(raw) {
    Atomics.add(cell, 1, 1); // one more frame taken: the reader may read on
    Atomics.notify(cell, 1);
    if (typeof raw !== 'string') {
      markGone(raw?.tooBig ? `it sent a value over ${MAX_FRAME} bytes` : 'the other process closed the channel');
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
      if (pending.has(msg.id) && !replies.has(msg.id)) replies.set(msg.id, msg);
    } else if (msg.k === 'settle') {
      const s = settlers.get(msg.p);
      if (!s) return;
      settlers.delete(msg.p);
      let value;
      try {
        value = dec(msg.v);
      } catch (err) {
        return s.reject(err);
      }
      (msg.ok === true ? s.resolve : s.reject)(value);
    } else if (msg.k === 'ev') {
      onEvent(msg);
    } else {
      serve(msg);
    }
  }

  function drain() {
    for (;;) {
      const m = receiveMessageOnPort(port1);
      if (!m) return;
      dispatch(m.message);
    }
  }

  port1.on('message', (m) => dispatch(m));
  if (!keepAlive) port1.unref();

  function wait(done) {
    while (!done()) {
      if (gone) throw new PeerGone(gone);
      const seen = Atomics.load(cell, 0);
      const m = receiveMessageOnPort(port1);
      if (m) {
        dispatch(m.message);
        continue;
      }
      if (Atomics.wait(cell, 0, seen, 100) === 'timed-out' && !peerAlive()) {
        drain();
        if (!done()) {
          markGone('the other process ended');
          throw new PeerGone(gone);
        }
      }
    }
  }

  function request(msg) {
    if (gone) throw new PeerGone(gone);
    const id = ++seq;
    pending.add(id);
    let r;
    try {
      send({ ...msg, id });
      wait(() => replies.has(id));
      r = replies.get(id);
    } finally {
      pending.delete(id);
      replies.delete(id);
    }
    const value = dec(r.v);
    if (r.ok === true) return value;
    throw value;
  }

  // ---- serving the other side's requests on my values ----
  function serve(msg) {
    const { id } = msg;
    let ok = true;
    let value;
    try {
      const target = exported.get(msg.t);
      if (target === undefined) throw new ReferenceError('unknown reference');
      switch (msg.k) {
        case 'call':
          value = msg.n ? Reflect.construct(target, decList(msg.a)) : apply(target, dec(msg.this), decList(msg.a));
          break;
        case 'get':
          value = Reflect.get(target, decKey(msg.key));
          break;
        case 'set':
          value = Reflect.set(target, decKey(msg.key), dec(msg.v));
          break;
        case 'has':
          value = Reflect.has(target, decKey(msg.key));
          break;
        case 'del':
          value = Reflect.deleteProperty(target, decKey(msg.key));
          break;
        case 'keys':
          value = Reflect.ownKeys(target).map(encKey);
          break;
        case 'desc':
          value = Reflect.getOwnPropertyDescriptor(target, decKey(msg.key));
          break;
        case 'define':
          value = Reflect.defineProperty(target, decKey(msg.key), decDesc(dec(msg.v)));
          break;
        case 'proto':
          value = Reflect.getPrototypeOf(target);
          break;
        default:
          throw new TypeError(`unknown request ${String(msg.k).slice(0, 20)}`);
      }
    } catch (err) {
      ok = false;
      value = err;
    }
    let v;
    try {
      if (!ok) v = enc(value);
      else if (msg.k === 'keys') v = ['s', stringify(value)];
      else if (msg.k === 'desc') v = value === undefined ? ['u'] : ['s', stringify(encDesc(value))];
      else v = enc(value);
    } catch (err) {
      ok = false;
      v = enc(new Error(`the value could not be passed: ${err?.message ?? err}`));
    }
    send({ k: 'ret', id, ok, v });
  }

  // A property descriptor crosses as flags plus its encoded value or accessors.
  function encDesc(d) {
    const out = {};
    for (const f of ['writable', 'enumerable', 'configurable']) if (f in d) out[f] = d[f] === true;
    if ('value' in d) out.value = enc(d.value);
    if ('get' in d) out.get = enc(d.get);
    if ('set' in d) out.set = enc(d.set);
    return out;
  }

  function decDesc(text) {
    const d = parse(String(text));
    if (d === null || typeof d !== 'object') throw new ProtocolError('a descriptor was expected');
    const out = {};
    for (const f of ['writable', 'enumerable', 'configurable']) if (f in d) out[f] = d[f] === true;
    for (const f of ['value', 'get', 'set']) if (f in d) out[f] = dec(d[f]);
    return out;
  }

  // ---- encoding my values ----
  function exportValue(value) {
    let id = exportId.get(value);
    if (id === undefined) {
      id = exported.size + 1;
      exported.set(id, value);
      exportId.set(value, id);
    }
    return id;
  }

  function encKey(key) {
    return typeof key === 'symbol' ? encSymbol(key) : ['s', String(key)];
  }

  function encSymbol(sym) {
    const known = WELL_KNOWN.get(sym);
    if (known) return ['y', 'w', known];
    const reg = Symbol.keyFor(sym);
    if (reg !== undefined) return ['y', 'r', reg];
    let id = symbolId.get(sym);
    if (id === undefined) {
      id = symbolId.size + 1;
      symbolId.set(sym, id);
    }
    return ['y', 'u', id, sym.description ?? ''];
  }

  function enc(v, depth = 0) {
    switch (typeof v) {
      case 'undefined':
        return ['u'];
      case 'boolean':
        return ['b', v];
      case 'string':
        return ['s', v];
      case 'number':
        return ['n', Number.isFinite(v) && !Object.is(v, -0) ? v : String(Object.is(v, -0) ? '-0' : v)];
      case 'bigint':
        return ['g', v.toString()];
      case 'symbol':
        return encSymbol(v);
    }
    if (v === null) return ['z'];
    const intrinsic = INTRINSICS.names.get(v);
    if (intrinsic !== undefined && (runner || !COMPILERS.has(intrinsic))) return ['I', intrinsic];
    const theirs = importId.get(v);
    if (theirs !== undefined) return ['R', theirs];
    if (!isProxy(v) && depth < COPY_DEPTH) {
      if (isPromise(v)) return ['P', exportPromise(v)];
      if (isNativeError(v)) return ['E', encError(v, depth)];
      if (isDate(v)) return ['D', apply(dateTime, v, [])];
      if (isRegExp(v)) return ['X', apply(regexpSource, v, []), apply(regexpFlags, v, [])];
      if (isMap(v)) {
        const out = [];
        for (const [k, x] of apply(mapEntries, v, [])) out.push([enc(k, depth + 1), enc(x, depth + 1)]);
        return ['M', out];
      }
      if (isSet(v)) {
        const out = [];
        for (const x of apply(setValues, v, [])) out.push(enc(x, depth + 1));
        return ['S', out];
      }
      if (isArrayBuffer(v)) return ['A', Buffer.from(v).toString('base64')];
      if (isTypedArray(v)) {
        const kind = Buffer.isBuffer(v) ? 'Buffer' : v.constructor?.name;
        const bytes = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
        return ['T', typeof kind === 'string' ? kind : 'Uint8Array', bytes];
      }
    }
    const id = exportValue(v);
    if (typeof v === 'function') {
      let name = '';
      let length = 0;
      const own = (key) => Reflect.getOwnPropertyDescriptor(v, key);
      try {
        name = String(own('name')?.value ?? '');
        length = Number(own('length')?.value ?? 0);
      } catch {}
      let proto = false;
      try {
        proto = own('prototype') !== undefined;
      } catch {}
      return ['O', id, 'f', name.slice(0, 200), length, proto];
    }
    return ['O', id, Array.isArray(v) ? 'a' : 'o', 0, 0, false, depth < PREVIEW_DEPTH ? preview(v, depth) : []];
  }

  // What a printout of the proxy shows (Node's inspect prints a proxy's target, not through its traps):
  // the own enumerable data properties, as they were when the object crossed. Never read otherwise.
  function preview(v, depth) {
    const out = [];
    if (isProxy(v)) return out;
    try {
      for (const key of Object.keys(v)) {
        if (out.length >= PREVIEW_KEYS || key === '__proto__' || key === 'length') break;
        const d = Reflect.getOwnPropertyDescriptor(v, key);
        if (d !== undefined && 'value' in d) out.push([key, enc(d.value, depth + 1)]);
      }
    } catch {}
    return out;
  }

  function encError(err, depth) {
    const read = (key) => {
      try {
        return err[key];
      } catch {
        return undefined;
      }
    };
    const out = { name: String(read('name') ?? 'Error'), message: String(read('message') ?? '') };
    const stack = read('stack');
    if (typeof stack === 'string') out.stack = stack;
    const props = [];
    try {
      for (const key of Object.keys(err)) {
        if (key === 'stack' || key === 'message') continue;
        props.push([key, enc(read(key), depth + 1)]);
        if (props.length >= 50) break;
      }
    } catch {}
    out.props = props;
    if (Object.prototype.hasOwnProperty.call(err, 'cause')) out.cause = enc(read('cause'), depth + 1);
    if (Array.isArray(read('errors'))) out.errors = enc(read('errors'), depth + 1);
    return out;
  }

  function exportPromise(p) {
    const id = exportValue(p);
    const settle = (ok) => (value) => {
      let v;
      try {
        v = enc(value);
      } catch (err) {
        ok = false;
        v = enc(new Error(`the value could not be passed: ${err?.message ?? err}`));
      }
      try {
        send({ k: 'settle', p: id, ok, v });
      } catch {}
    };
    Promise.prototype.then.call(p, settle(true), settle(false));
    return id;
  }

  // ---- decoding their values ----
  function decList(list) {
    if (!Array.isArray(list)) throw new ProtocolError('a list was expected');
    return list.map((x) => dec(x));
  }

  function decKey(key) {
    if (!Array.isArray(key)) throw new ProtocolError('a key was expected');
    if (key[0] === 's') return String(key[1]);
    if (key[0] === 'y') return decSymbol(key);
    throw new ProtocolError('a key was expected');
  }

  function decSymbol(x) {
    if (x[1] === 'w') {
      const s = Symbol[x[2]];
      if (typeof s !== 'symbol') throw new ProtocolError('unknown symbol');
      return s;
    }
    if (x[1] === 'r') return Symbol.for(String(x[2]));
    let s = symbols.get(x[2]);
    if (s === undefined) {
      s = Symbol(String(x[3] ?? '').slice(0, 200));
      symbols.set(x[2], s);
    }
    return s;
  }

  function dec(x, depth = 0) {
    if (!Array.isArray(x)) throw new ProtocolError('a value was expected');
    if (depth > DECODE_DEPTH) throw new ProtocolError('a value nested too deep');
    switch (x[0]) {
      case 'u':
        return undefined;
      case 'z':
        return null;
      case 'b':
        return x[1] === true;
      case 's':
        return String(x[1]);
      case 'n':
        return typeof x[1] === 'number' ? x[1] : x[1] === '-0' ? -0 : Number(x[1]);
      case 'g':
        return BigInt(String(x[1]));
      case 'y':
        return decSymbol(x);
      case 'I': {
        if (!INTRINSICS.byName.has(x[1])) throw new ProtocolError('unknown built-in');
        if (runner && COMPILERS.has(x[1])) throw new ProtocolError('a code-compiling constructor cannot cross');
        return INTRINSICS.byName.get(x[1]);
      }
      case 'R': {
        if (!exported.has(x[1])) throw new ProtocolError('unknown reference');
        return exported.get(x[1]);
      }
      case 'D':
        return new Date(Number(x[1]));
      case 'X':
        return new RegExp(String(x[1]), String(x[2]));
      case 'M':
        return new Map(x[1].map(([k, v]) => [dec(k, depth + 1), dec(v, depth + 1)]));
      case 'S':
        return new Set(x[1].map((v) => dec(v, depth + 1)));
      case 'A': {
        const b = Buffer.from(String(x[1]), 'base64');
        return b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
      }
      case 'T': {
        const b = Buffer.from(String(x[2]), 'base64');
        if (x[1] === 'Buffer') return b;
        const C = TYPED.includes(x[1]) ? globalThis[x[1]] : Uint8Array;
        const copy = b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
        return new C(copy, 0, b.length / C.BYTES_PER_ELEMENT);
      }
      case 'E':
        return decError(x[1], depth);
      case 'P':
        return importPromise(x[1]);
      case 'O':
        return importObject(x);
      default:
        throw new ProtocolError('unknown value');
    }
  }

  function decError(d, depth) {
    if (d === null || typeof d !== 'object') throw new ProtocolError('an error was expected');
    const name = String(d.name);
    const C = Object.hasOwn(ERRORS, name) ? ERRORS[name] : Error;
    const err = C === AggregateError ? new AggregateError([], String(d.message)) : new C(String(d.message));
    if (C.name !== name) Object.defineProperty(err, 'name', { value: name, writable: true, configurable: true });
    if (typeof d.stack === 'string') {
      Object.defineProperty(err, 'stack', { value: d.stack, writable: true, configurable: true });
    }
    for (const [key, v] of Array.isArray(d.props) ? d.props : []) {
      if (key === '__proto__') continue;
      err[String(key)] = dec(v, depth + 1);
    }
    if (d.cause !== undefined) err.cause = dec(d.cause, depth + 1);
    if (d.errors !== undefined) err.errors = dec(d.errors, depth + 1);
    return err;
  }

  function importPromise(id) {
    if (imported.has(id)) return imported.get(id);
    const p = new Promise((resolve, reject) => settlers.set(id, { resolve, reject }));
    imported.set(id, p);
    importId.set(p, id);
    return p;
  }

  function importObject(x) {
    const [, id, kind, name, length, hasPrototype] = x;
    if (imported.has(id)) return imported.get(id);
    let target;
    if (kind === 'f') {
      // A target of the same shape, so the proxy's invariants hold: an own `prototype` or none.
      target = hasPrototype ? function () {} : () => {};
      Object.defineProperty(target, 'name', { value: String(name ?? '') });
      Object.defineProperty(target, 'length', { value: Number(length) || 0 });
    } else {
      target = kind === 'a' ? [] : {};
    }
    const shown = Array.isArray(x[6]) ? x[6] : [];
    const fixed = (key) => {
      const d = Reflect.getOwnPropertyDescriptor(target, key);
      return d !== undefined && !d.configurable;
    };
    const proxy = new Proxy(target, {
      apply: (_t, self, args) => request({ k: 'call', t: id, this: enc(self), a: args.map((a) => enc(a)) }),
      construct: (_t, args) => request({ k: 'call', t: id, n: true, this: ['u'], a: args.map((a) => enc(a)) }),
      get: (_t, key) => request({ k: 'get', t: id, key: encKey(key) }),
      set: (_t, key, value) => request({ k: 'set', t: id, key: encKey(key), v: enc(value) }) === true,
      has: (_t, key) => request({ k: 'has', t: id, key: encKey(key) }) === true,
      deleteProperty: (_t, key) => request({ k: 'del', t: id, key: encKey(key) }) === true,
      ownKeys: () => {
        const keys = parse(request({ k: 'keys', t: id })).map((k) => decKey(k));
        for (const key of Reflect.ownKeys(target)) if (fixed(key) && !keys.includes(key)) keys.push(key);
        return keys;
      },
      getOwnPropertyDescriptor: (_t, key) => {
        const text = request({ k: 'desc', t: id, key: encKey(key) });
        if (text === undefined) return fixed(key) ? Reflect.getOwnPropertyDescriptor(target, key) : undefined;
        const d = decDesc(text);
        const out = {};
        for (const f of ['value', 'get', 'set', 'writable', 'enumerable']) if (f in d) out[f] = d[f];
        if (fixed(key)) {
          // Keep to what the target says of its own fixed properties (`length`, `prototype`).
          const t = Reflect.getOwnPropertyDescriptor(target, key);
          return { value: 'value' in d ? d.value : t.value, writable: t.writable, enumerable: t.enumerable, configurable: false };
        }
        out.configurable = true;
        return out;
      },
      defineProperty: (_t, key, desc) => request({ k: 'define', t: id, key: encKey(key), v: ['s', stringify(encDesc(desc))] }) === true,
      getPrototypeOf: () => request({ k: 'proto', t: id }),
    });
    imported.set(id, proxy);
    importId.set(proxy, id);
    for (const [key, v] of shown) {
      if (typeof key !== 'string' || key === '__proto__' || key === 'length') continue;
      Object.defineProperty(target, key, { value: dec(v, 1), writable: true, enumerable: true, configurable: true });
    }
    return proxy;
  }

  return {
    enc,
    dec,
    send,
    request,
    wait,
    drain,
    event: (body) => send({ ...body, k: 'ev' }),
    isGone: () => gone,
    setGone: markGone,
  };
}
