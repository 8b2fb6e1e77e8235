// The test wrapper a code-test file imports as `skill-be/testing` (or `@ngwes/skill-be/testing`).
// Registration goes to one registry on globalThis, so both package names and the harness that runs
// the tests share it whichever copy of this file Node loaded.
const REGISTRY = Symbol.for('skill-be.testing.registry');

function registry() {
  globalThis[REGISTRY] ??= { tests: [], names: new Set() };
  return globalThis[REGISTRY];
}

export function test(name, fn) {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new TypeError('test(name, fn): the name must be a non-empty string');
  }
  if (typeof fn !== 'function') {
    throw new TypeError(`test("${name}", fn): fn must be a function that gets the answer's exported fields`);
  }
  const reg = registry();
  if (reg.names.has(name)) {
    throw new Error(`test "${name}" is registered twice in this file; give each test its own name`);
  }
  reg.names.add(name);
  reg.tests.push({ name, fn });
}

// `test`, typed for the editor by testing.d.ts; nothing changes at run time.
export function tests() {
  return test;
}
