// The membrane's codec: one side's values to the wire and back (tags in wire.mjs). Primitives,
// errors, dates, regular expressions, maps, sets and byte arrays cross as copies; promises and other
// objects and functions by reference (ctx.exportValue on the way out, ctx.importObject and
// ctx.importPromise on the way in, in membrane.mjs).
//
// The built-ins follow one rule, the runner's object-capability rule (docs/threat-model-runner.md):
// nothing that comes from the answer's side is ever one of the runner's own objects, unless the
// runner handed that very object over first (`R`). So the runner's built-ins cross to the answer by
// name (`I`: the answer takes its own), while the answer's built-ins cross to the runner by
// reference (`B`: the runner gets a proxy of the answer's own, like any other object of the
// answer's); the runner refuses `I`. The one place a name picks a runner object is the prototype of
// one of the answer's objects (decProto): a language prototype of that name, so that `instanceof`
// and `assert.deepEqual` treat an answer's array as an array; it answers the proxy's
// getPrototypeOf and nothing else.
import { types } from 'node:util';
import { INTRINSICS, WELL_KNOWN, PROTOTYPES } from './intrinsics.mjs';

export class ProtocolError extends Error {}

const COPY_DEPTH = 16; // errors and collections copied deeper than this cross by reference
const DECODE_DEPTH = 200;
const PREVIEW_DEPTH = 3;
const PREVIEW_KEYS = 50;
const TYPED = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];
const ERRORS = { Error, TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError, AggregateError };
const { isPromise, isNativeError, isDate, isRegExp, isMap, isSet, isArrayBuffer, isTypedArray, isProxy } = types;
const dateTime = Date.prototype.getTime;
const regexpSource = Object.getOwnPropertyDescriptor(RegExp.prototype, 'source').get;
const regexpFlags = Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags').get;
const mapEntries = Map.prototype.entries;
const setValues = Set.prototype.values;
const apply = Reflect.apply;

/** ctx: {runner, openNames, exportValue(v, holder), exportPromise(p), importObject(x), importPromise(id), exported, importId, fromPeer}. */
class Codec {
  constructor(ctx) {
    this.ctx = ctx;
    this.symbols = new Map(); // their symbol id -> my stand-in
    this.symbolId = new Map(); // my symbol -> my id
  }

  encKey(key) {
    return typeof key === 'symbol' ? this.encSymbol(key) : ['s', String(key)];
  }

  encSymbol(sym) {
    const known = WELL_KNOWN.get(sym);
    if (known) return ['y', 'w', known];
    const reg = Symbol.keyFor(sym);
    if (reg !== undefined) return ['y', 'r', reg];
    let id = this.symbolId.get(sym);
    if (id === undefined) {
      id = this.symbolId.size + 1;
      this.symbolId.set(sym, id);
    }
    return ['y', 'u', id, sym.description ?? ''];
  }

  encPrimitive(v) {
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
        return this.encSymbol(v);
    }
    return v === null ? ['z'] : null;
  }

  // A copy of a value that crosses as one, or null.
  encCopy(v, depth) {
    if (isProxy(v) || depth >= COPY_DEPTH) return null;
    if (isPromise(v)) return ['P', this.ctx.exportPromise(v)];
    if (isNativeError(v)) return ['E', this.encError(v, depth)];
    if (isDate(v)) return ['D', apply(dateTime, v, [])];
    if (isRegExp(v)) return ['X', apply(regexpSource, v, []), apply(regexpFlags, v, [])];
    if (isMap(v)) {
      const out = [];
      for (const [k, x] of apply(mapEntries, v, [])) out.push([this.enc(k, depth + 1), this.enc(x, depth + 1)]);
      return ['M', out];
    }
    if (isSet(v)) {
      const out = [];
      for (const x of apply(setValues, v, [])) out.push(this.enc(x, depth + 1));
      return ['S', out];
    }
    if (isArrayBuffer(v)) return ['A', Buffer.from(v).toString('base64')];
    if (isTypedArray(v)) {
      const kind = Buffer.isBuffer(v) ? 'Buffer' : v.constructor?.name;
      const bytes = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
      return ['T', typeof kind === 'string' ? kind : 'Uint8Array', bytes];
    }
    return null;
  }

  /** `holder`: the object v was read from, the receiver a call of v through the membrane gets. */
  enc(v, depth = 0, holder = undefined) {
    const primitive = this.encPrimitive(v);
    if (primitive !== null) return primitive;
    const intrinsic = INTRINSICS.names.get(v);
    if (intrinsic !== undefined) return this.ctx.runner ? ['I', intrinsic] : this.encBuiltin(v, intrinsic);
    const theirs = this.ctx.importId.get(v);
    if (theirs !== undefined) return ['R', theirs];
    const copy = this.encCopy(v, depth);
    if (copy !== null) return copy;
    const id = this.ctx.exportValue(v, holder);
    if (typeof v === 'function') return this.encFunction(v, id);
    return ['O', id, Array.isArray(v) ? 'a' : 'o', 0, 0, false, depth < PREVIEW_DEPTH ? this.preview(v, depth) : []];
  }

  // One of the answer's built-ins, by reference: [B, name, id, kind, function name, length, hasPrototype].
  encBuiltin(v, name) {
    const id = this.ctx.exportValue(v, undefined);
    const ref = typeof v === 'function' ? this.encFunction(v, id) : ['O', id, Array.isArray(v) ? 'a' : 'o', '', 0, false];
    return ['B', name, ...ref.slice(1)];
  }

  encFunction(v, id) {
    let name = '';
    let length = 0;
    let proto = false;
    const own = (key) => Reflect.getOwnPropertyDescriptor(v, key);
    try {
      name = String(own('name')?.value ?? '');
      length = Number(own('length')?.value ?? 0);
      proto = own('prototype') !== undefined;
    } catch {}
    return ['O', id, 'f', name.slice(0, 200), length, proto];
  }

  // What a printout of the proxy shows (Node's inspect prints a proxy's target, not through its traps):
  // the own enumerable data properties, as they were when the object crossed. Never read otherwise.
  preview(v, depth) {
    const out = [];
    if (isProxy(v)) return out;
    try {
      for (const key of Object.keys(v)) {
        if (out.length >= PREVIEW_KEYS || key === '__proto__' || key === 'length') break;
        const d = Reflect.getOwnPropertyDescriptor(v, key);
        if (d !== undefined && 'value' in d) out.push([key, this.enc(d.value, depth + 1, v)]);
      }
    } catch {}
    return out;
  }

  encError(err, depth) {
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
        props.push([key, this.enc(read(key), depth + 1)]);
        if (props.length >= 50) break;
      }
    } catch {}
    out.props = props;
    if (Object.hasOwn(err, 'cause')) out.cause = this.enc(read('cause'), depth + 1);
    if (Array.isArray(read('errors'))) out.errors = this.enc(read('errors'), depth + 1);
    return out;
  }

  // A property descriptor crosses as flags plus its encoded value or accessors.
  encDesc(d, holder) {
    const out = {};
    for (const f of ['writable', 'enumerable', 'configurable']) if (f in d) out[f] = d[f] === true;
    if ('value' in d) out.value = this.enc(d.value, 0, holder);
    if ('get' in d) out.get = this.enc(d.get, 0, holder);
    if ('set' in d) out.set = this.enc(d.set, 0, holder);
    return out;
  }

  decDesc(text) {
    const d = JSON.parse(String(text));
    if (d === null || typeof d !== 'object') throw new ProtocolError('a descriptor was expected');
    const out = {};
    for (const f of ['writable', 'enumerable', 'configurable']) if (f in d) out[f] = d[f] === true;
    for (const f of ['value', 'get', 'set']) if (f in d) out[f] = this.dec(d[f]);
    return out;
  }

  decList(list) {
    if (!Array.isArray(list)) throw new ProtocolError('a list was expected');
    return list.map((x) => this.dec(x));
  }

  decKey(key) {
    if (!Array.isArray(key)) throw new ProtocolError('a key was expected');
    if (key[0] === 's') return String(key[1]);
    if (key[0] === 'y') return this.decSymbol(key);
    throw new ProtocolError('a key was expected');
  }

  decSymbol(x) {
    if (x[1] === 'w') {
      const s = Symbol[x[2]];
      if (typeof s !== 'symbol') throw new ProtocolError('unknown symbol');
      return s;
    }
    if (x[1] === 'r') return Symbol.for(String(x[2]));
    let s = this.symbols.get(x[2]);
    if (s === undefined) {
      s = Symbol(String(x[3] ?? '').slice(0, 200));
      this.symbols.set(x[2], s);
    }
    return s;
  }

  decPrimitive(x) {
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
        return this.decSymbol(x);
    }
    throw new ProtocolError('unknown value');
  }

  dec(x, depth = 0) {
    if (!Array.isArray(x)) throw new ProtocolError('a value was expected');
    if (depth > DECODE_DEPTH) throw new ProtocolError('a value nested too deep');
    switch (x[0]) {
      case 'I':
        return this.decIntrinsic(x);
      case 'B':
        return this.decBuiltin(x);
      case 'R': {
        if (!this.ctx.exported.has(x[1])) throw new ProtocolError('unknown reference');
        return this.ctx.exported.get(x[1]).v;
      }
      case 'P':
        return this.ctx.importPromise(x[1]);
      case 'O':
        return this.ctx.importObject(x);
      default: {
        const copy = this.decCopy(x, depth);
        if (copy !== null && typeof copy === 'object') this.ctx.fromPeer.add(copy);
        return copy;
      }
    }
  }

  // [I, name]: one of the runner's built-ins, named; the answer's side takes its own. The runner
  // takes nothing by name from the answer's side.
  decIntrinsic(x) {
    if (this.ctx.runner) throw new ProtocolError("a built-in cannot be named from the answer's side");
    if (!INTRINSICS.byName.has(x[1])) throw new ProtocolError('unknown built-in');
    return INTRINSICS.byName.get(x[1]);
  }

  // [B, name, ...]: one of the answer's built-ins, by reference: on the runner's side a proxy of the
  // answer's own, whatever its name says.
  decBuiltin(x) {
    if (!this.ctx.runner) throw new ProtocolError("the runner's built-ins cross by name");
    // A test's control only (--weaken intrinsics, intrinsic=<name>): the name picks the runner's own.
    const open = this.ctx.openNames;
    if (open && (open === true || open.has(x[1])) && INTRINSICS.byName.has(x[1])) return INTRINSICS.byName.get(x[1]);
    return this.ctx.importObject(['O', ...x.slice(2)]);
  }

  /** The prototype of one of the other side's objects: a language prototype the answer names is the
   * runner's own of that name (only for the proxy's getPrototypeOf); any other value as dec(). */
  decProto(x) {
    if (this.ctx.runner && Array.isArray(x) && x[0] === 'B' && PROTOTYPES.has(x[1])) return INTRINSICS.byName.get(x[1]);
    return this.dec(x);
  }

  decCopy(x, depth) {
    switch (x[0]) {
      case 'D':
        return new Date(Number(x[1]));
      case 'X':
        return new RegExp(String(x[1]), String(x[2]));
      case 'M':
        return new Map(x[1].map(([k, v]) => [this.dec(k, depth + 1), this.dec(v, depth + 1)]));
      case 'S':
        return new Set(x[1].map((v) => this.dec(v, depth + 1)));
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
        return this.decError(x[1], depth);
      default:
        return this.decPrimitive(x);
    }
  }

  decError(d, depth) {
    if (d === null || typeof d !== 'object') throw new ProtocolError('an error was expected');
    const name = String(d.name);
    const C = Object.hasOwn(ERRORS, name) ? ERRORS[name] : Error;
    const err = C === AggregateError ? new AggregateError([], String(d.message)) : new C(String(d.message));
    if (C.name !== name) Object.defineProperty(err, 'name', { value: name, writable: true, configurable: true });
    if (typeof d.stack === 'string') {
      Object.defineProperty(err, 'stack', { value: d.stack, writable: true, configurable: true });
    }
    const own = (key, value) =>
      Object.defineProperty(err, key, { value, writable: true, enumerable: true, configurable: true });
    for (const [key, v] of Array.isArray(d.props) ? d.props : []) {
      if (key === '__proto__') continue;
      own(String(key), this.dec(v, depth + 1));
    }
    if (d.cause !== undefined) own('cause', this.dec(d.cause, depth + 1));
    if (d.errors !== undefined) own('errors', this.dec(d.errors, depth + 1));
    return err;
  }

}

/** The codec's functions, bound: {enc, dec, decProto, encKey, decKey, decList, encDesc, decDesc}. */
export function createCodec(ctx) {
  const c = new Codec(ctx);
  const bound = {};
  for (const name of ['enc', 'dec', 'decProto', 'encKey', 'decKey', 'decList', 'encDesc', 'decDesc']) bound[name] = c[name].bind(c);
  return bound;
}
