// Each side's own built-ins stand for the other's: the table of their names, taken when this module
// loads (in the answer's process, before the answer's code runs; in the runner, before lockdown()).
// ---- the intrinsics: each side's own built-ins stand for the other's -------------------------
export function intrinsicTable() {
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
export const INTRINSICS = intrinsicTable();
export const WELL_KNOWN = new Map(
  Object.getOwnPropertyNames(Symbol)
    .filter((k) => typeof Symbol[k] === 'symbol')
    .map((k) => [Symbol[k], k]),
);
// The language's prototypes, by name: what the runner may answer for the prototype of one of the
// answer's objects (its own of the same name), so that `instanceof` and `assert.deepEqual` see an
// answer's plain object, array or error as one. Anywhere else a built-in of the answer's side is a
// proxy of the answer's own (codec.mjs).
const HIDDEN_PROTOTYPES = ['%ArrayIterator%', '%MapIterator%', '%SetIterator%', '%StringIterator%', '%Iterator%', '%Generator%', '%AsyncGenerator%'];
export const PROTOTYPES = new Set(
  [...INTRINSICS.byName.keys()].filter((name) => /^[%A-Za-z0-9]+\.prototype$/.test(name) || HIDDEN_PROTOTYPES.includes(name)),
);
