// Freezes the runner's realm before any test file or answer is loaded: a hand-written equivalent of
// SES `lockdown()`, kept small because it only has to serve this one process.
//
// Why not SES itself: it is ~400 KB that would have to be vendored and kept current, it replaces
// Date.now, Math.random and the error stacks the tests' messages rely on, and it does not know Node's
// own built-in modules (EventEmitter, streams, http), which are exactly what a test hands an answer.
// What this does instead:
//   * every intrinsic is frozen: each function reachable from globalThis and from every Node built-in
//     module's exports, its `prototype`, its own properties that are functions, prototypes or namespaces,
//     and every object on a prototype chain of those (Object.prototype, Function.prototype, the
//     hidden %TypedArray%, iterator and generator intrinsics, EventEmitter.prototype, Stream.prototype…);
//   * instances with state (process, console, streams, globalThis itself) are left alone: nothing of
//     them is a prototype another object inherits through;
//   * the "override mistake" is tamed as SES does: a writable data property of a frozen prototype
//     becomes a getter and a setter that defines an own property on the instance, so `this.name = 'X'`
//     in an Error subclass and `this._events = {}` in EventEmitter keep working.
// After this, no value the answer can reach through the membrane lets it change how any runner
// object or built-in behaves (there is no `Object.prototype.then` to set, no `emit` to replace).
import { builtinModules, createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// The built-in modules a test hands an answer objects of, frozen at start; any other built-in
// module is frozen as soon as it is seen loaded (after the test file, after the answer).
const BASE = ['events', 'stream', 'buffer', 'util', 'assert', 'assert/strict', 'string_decoder', 'timers', 'url', 'path'];
// `module` and `process` hold live state that Node itself rewrites; the others print a warning when
// loaded or are only reached by code that the permission model stops anyway.
const SKIPPED = new Set(['module', 'process', 'sys', 'punycode', 'wasi', 'test', 'repl', 'sea', 'sqlite', 'v8', 'vm']);
// Prototypes whose methods are hot and never overwritten on instances: frozen as they are.
const HOT = [Array.prototype, String.prototype, Map.prototype, Set.prototype, Object.getPrototypeOf(Uint8Array.prototype)];
// On the prototypes of the language itself, only these are ever assigned on instances.
const OVERRIDDEN = new Set(['constructor', 'toString', 'toLocaleString', 'valueOf', 'name', 'message', 'stack', 'toJSON', 'then']);
// Objects with state that must stay writable (never frozen, never walked through).
const LIVE = () => [globalThis, process, console, process.env];

function hiddenIntrinsics() {
  const gen = function* () {};
  const agen = async function* () {};
  return [
    Object.getPrototypeOf(Uint8Array),
    Object.getPrototypeOf([][Symbol.iterator]()),
    Object.getPrototypeOf(new Map()[Symbol.iterator]()),
    Object.getPrototypeOf(new Set()[Symbol.iterator]()),
    Object.getPrototypeOf(''[Symbol.iterator]()),
    Object.getPrototypeOf(/x/[Symbol.matchAll]('')),
    Object.getPrototypeOf(async () => {}),
    Object.getPrototypeOf(gen),
    Object.getPrototypeOf(agen),
    Object.getPrototypeOf(gen()),
    Object.getPrototypeOf(agen()),
    Object.getPrototypeOf(Object.getPrototypeOf(agen.prototype)),
  ];
}

// The language's own globals (ECMAScript), as opposed to Node's (Buffer, URL, EventTarget, fetch…).
const LANGUAGE = [
  'Object', 'Function', 'Array', 'Number', 'Boolean', 'String', 'Symbol', 'BigInt', 'Date', 'Promise', 'RegExp',
  'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError', 'URIError',
  'JSON', 'Math', 'Reflect', 'Proxy', 'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'FinalizationRegistry',
  'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Atomics', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray',
  'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array',
  'BigUint64Array', 'Intl', 'WebAssembly', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'encodeURIComponent',
  'decodeURIComponent', 'encodeURI', 'decodeURI', 'escape', 'unescape', 'eval',
];

function languageRoots() {
  return [...hiddenIntrinsics(), ...LANGUAGE.map((name) => globalThis[name]).filter((v) => v !== undefined)];
}

// Node's globals: a getter may load a module, so only plain values are taken (the rest comes with
// the modules once loaded).
function nodeGlobalRoots() {
  const out = [];
  for (const key of Reflect.ownKeys(globalThis)) {
    const d = Reflect.getOwnPropertyDescriptor(globalThis, key);
    if (d && 'value' in d && !LANGUAGE.includes(key)) out.push(d.value);
  }
  return out;
}

// The public built-in modules this process has loaded so far (and BASE): their exports.
function moduleRoots(done) {
  const names = new Set(BASE);
  for (const entry of process.moduleLoadList) {
    if (entry.startsWith('NativeModule ')) names.add(entry.slice(13));
  }
  const out = [];
  for (const name of names) {
    if (done.has(name) || SKIPPED.has(name) || !builtinModules.includes(name)) continue;
    done.add(name);
    try {
      out.push(require(name));
    } catch {}
  }
  return out;
}

// A property is worth walking into when its value is a function, a prototype (it has an own
// `constructor`) or a namespace (an object none of whose own values is plain state we could break).
function isPrototypeLike(obj) {
  try {
    const d = Reflect.getOwnPropertyDescriptor(obj, 'constructor');
    return d !== undefined && 'value' in d && typeof d.value === 'function';
  } catch {
    return false;
  }
}

// `this.x = v` on an instance of a frozen prototype that has a data property `x`: an own property.
function tameOverride(proto, key, d) {
  const value = d.value;
  const getter = { get [key]() { return value; } };
  const setter = {
    set [key](v) {
      if (this === proto) throw new TypeError(`Cannot assign to read only property '${String(key)}' of a frozen object`);
      Reflect.defineProperty(this, key, { value: v, writable: true, enumerable: true, configurable: true });
    },
  };
  Reflect.defineProperty(proto, key, {
    get: Reflect.getOwnPropertyDescriptor(getter, key).get,
    set: Reflect.getOwnPropertyDescriptor(setter, key).set,
    enumerable: d.enumerable,
    configurable: false,
  });
}

const state = { seen: new Set(), modules: new Set(), language: null };

function walk(rootList, live) {
  const { seen } = state;
  const found = [];
  const visit = (v, namespace) => {
    if ((typeof v !== 'object' || v === null) && typeof v !== 'function') return;
    if (seen.has(v) || live.has(v)) return;
    if (typeof v === 'object' && !namespace && !isPrototypeLike(v)) return;
    seen.add(v);
    found.push(v);
  };
  for (const root of rootList) visit(root, true);
  for (let i = 0; i < found.length; i++) {
    const obj = found[i];
    visit(Object.getPrototypeOf(obj), true);
    for (const key of Reflect.ownKeys(obj)) {
      const d = Reflect.getOwnPropertyDescriptor(obj, key);
      if (!d) continue;
      if ('value' in d) visit(d.value, key === 'prototype' || key === 'promises');
      else {
        visit(d.get, false);
        visit(d.set, false);
      }
    }
  }
  return found;
}

// Freezes `obj` but for two kinds of property. Its non-configurable writable data properties
// (EventEmitter.prototype's private-symbol flags) can neither be tamed nor made read-only without
// breaking every instance, and they are keyed by symbols no answer can name. On Node's module
// objects (the exports of `node:fs`, not a function or a prototype), accessors stay configurable:
// Node defines lazy exports (`fs.Dir`) as getters that replace themselves with a value on first use,
// which `import 'node:fs'` does after this ran. Accessors of functions and prototypes (Buffer's
// @@species, URL.prototype.href) are fixed like the language's.
function harden(obj, fixAccessors) {
  const descriptors = Object.getOwnPropertyDescriptors(obj);
  let plain = true; // nothing to keep writable or configurable: Object.freeze, the fast way
  for (const key of Reflect.ownKeys(descriptors)) {
    const d = descriptors[key];
    if (!('value' in d)) {
      if (d.get) Object.freeze(d.get);
      if (d.set) Object.freeze(d.set);
      if (d.configurable && !fixAccessors) plain = false;
    } else if (!d.configurable && d.writable && typeof obj !== 'function') plain = false;
  }
  if (plain) {
    Object.freeze(obj);
    return;
  }
  for (const key of Reflect.ownKeys(descriptors)) {
    const d = descriptors[key];
    if (!('value' in d)) {
      if (d.get) Object.freeze(d.get);
      if (d.set) Object.freeze(d.set);
      if (d.configurable && fixAccessors) Reflect.defineProperty(obj, key, { configurable: false });
    } else if (d.configurable) {
      Reflect.defineProperty(obj, key, { writable: false, configurable: false });
    } else if (d.writable && typeof obj === 'function') {
      Reflect.defineProperty(obj, key, { writable: false });
    }
  }
  Object.preventExtensions(obj);
}

/**
 * The objects with state that lockdown() leaves writable (globalThis, process, console, performance):
 * no property can be added to them any more. Their own properties stay as they are (a test may
 * replace `console.log` or set `process.exitCode`); call it once the test file has loaded, so that
 * what the test file defines on them stays.
 */
export function sealLive() {
  for (const obj of [globalThis, process, console, globalThis.performance]) {
    if (obj !== undefined) Object.preventExtensions(obj);
  }
}

/**
 * Freezes every intrinsic of the language, of BASE and of each built-in module loaded so far; call
 * it again after more code has loaded to freeze the modules that code loaded. Returns how many
 * objects this call froze.
 */
export function lockdown() {
  const live = new Set(LIVE());
  const hot = new Set(HOT);
  const first = state.language === null;
  if (first) state.language = new Set(walk(languageRoots(), live));
  const found = [...(first ? state.language : []), ...walk([...(first ? nodeGlobalRoots() : []), ...moduleRoots(state.modules)], live)];
  // Tame first (the accessors are new functions: frozen with the rest), then freeze everything.
  const prototypes = new Set(found.filter(isPrototypeLike)); // before taming turns `constructor` into an accessor
  for (const obj of prototypes) {
    if (hot.has(obj)) continue;
    const language = state.language.has(obj);
    for (const key of Reflect.ownKeys(obj)) {
      if (language && !OVERRIDDEN.has(key)) continue;
      const d = Reflect.getOwnPropertyDescriptor(obj, key);
      if (d && 'value' in d && d.writable && d.configurable && key !== 'prototype') tameOverride(obj, key, d);
    }
  }
  for (const obj of found) {
    try {
      harden(obj, state.language.has(obj) || typeof obj === 'function' || prototypes.has(obj));
    } catch {}
  }
  return found.length;
}
