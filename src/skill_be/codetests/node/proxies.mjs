// The membrane's proxies: how a value of the other side that crossed by reference looks on this one.
// Every trap is a synchronous request to the owner (membrane.mjs); a promise becomes a local promise
// settled by the owner's settle message.
import { ProtocolError } from './codec.mjs';

const stringify = JSON.stringify;
const parse = JSON.parse;

/** ctx: the endpoint's tables (membrane.mjs); codec: codec.mjs; request(msg, decode = codec.dec): a
 * synchronous request, its reply decoded by `decode`. */
export function createProxies(ctx, codec, request) {
  const { enc, dec, decProto, encKey, decKey, encDesc, decDesc } = codec;
  const imported = new Map(); // their id -> my proxy or promise
  const settlers = new Map(); // their promise id -> {resolve, reject}

  // The receiver a call of theirs gets from this side: on the guarded runner's side only one of
  // their own values (or a primitive); a runner object never crosses just because it was `this`.
  const receiver = (self) => {
    if (!ctx.guarded || ctx.importId.has(self)) return enc(self);
    return (typeof self === 'object' && self !== null) || typeof self === 'function' ? ['u'] : enc(self);
  };

  function importPromise(id) {
    if (imported.has(id)) return imported.get(id);
    const p = new Promise((resolve, reject) => settlers.set(id, { resolve, reject }));
    imported.set(id, p);
    ctx.importId.set(p, id);
    return p;
  }

  function settle(msg) {
    const s = settlers.get(msg.p);
    if (!s) return;
    settlers.delete(msg.p);
    let value;
    try {
      value = dec(msg.v);
    } catch (err) {
      s.reject(err);
      return;
    }
    (msg.ok === true ? s.resolve : s.reject)(value);
  }

  // A target of the same shape as theirs, so the proxy's invariants hold: an own `prototype` or none.
  function makeTarget(kind, name, length, hasPrototype) {
    if (kind !== 'f') return kind === 'a' ? [] : {};
    // biome-ignore lint/complexity/useArrowFunction: an own `prototype`, as theirs has, needs a function expression
    const target = hasPrototype ? function () {} : () => {};
    Object.defineProperty(target, 'name', { value: String(name ?? '') });
    Object.defineProperty(target, 'length', { value: Number(length) || 0 });
    return target;
  }

  function handler(id, target) {
    const fixed = (key) => {
      const d = Reflect.getOwnPropertyDescriptor(target, key);
      return d !== undefined && !d.configurable;
    };
    return {
      apply: (_t, self, args) => request({ k: 'call', t: id, this: receiver(self), a: args.map((a) => enc(a)) }),
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
      getOwnPropertyDescriptor: (_t, key) => describe(id, target, key, fixed(key)),
      defineProperty: (_t, key, desc) =>
        request({ k: 'define', t: id, key: encKey(key), v: ['s', stringify(encDesc(desc))] }) === true,
      getPrototypeOf: () => request({ k: 'proto', t: id }, decProto),
    };
  }

  function describe(id, target, key, isFixed) {
    const text = request({ k: 'desc', t: id, key: encKey(key) });
    if (text === undefined) return isFixed ? Reflect.getOwnPropertyDescriptor(target, key) : undefined;
    const d = decDesc(text);
    const out = {};
    for (const f of ['value', 'get', 'set', 'writable', 'enumerable']) if (f in d) out[f] = d[f];
    if (isFixed) {
      // Keep to what the target says of its own fixed properties (`length`, `prototype`).
      const t = Reflect.getOwnPropertyDescriptor(target, key);
      return { value: 'value' in d ? d.value : t.value, writable: t.writable, enumerable: t.enumerable, configurable: false };
    }
    out.configurable = true;
    return out;
  }

  function importObject(x) {
    const [, id, kind, name, length, hasPrototype] = x;
    if (imported.has(id)) return imported.get(id);
    if (!['f', 'a', 'o'].includes(kind)) throw new ProtocolError('unknown kind of object');
    const target = makeTarget(kind, name, length, hasPrototype);
    const proxy = new Proxy(target, handler(id, target));
    imported.set(id, proxy);
    ctx.importId.set(proxy, id);
    for (const [key, v] of Array.isArray(x[6]) ? x[6] : []) {
      if (typeof key !== 'string' || key === '__proto__' || key === 'length') continue;
      Object.defineProperty(target, key, { value: dec(v, 1), writable: true, enumerable: true, configurable: true });
    }
    return proxy;
  }

  ctx.importObject = importObject;
  ctx.importPromise = importPromise;
  return { settle };
}
