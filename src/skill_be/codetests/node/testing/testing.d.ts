/**
 * The code-test wrapper of skill-be. A test file imports it as `skill-be/testing` (or
 * `@ngwes/skill-be/testing`), registers its tests with `test`, and fails a test by throwing.
 */

/** The fields the answer's module exported, by the names of the scenario's output contract. */
export type Fields = { result: unknown } & Record<string, unknown>;

/** A test: gets the exported fields, fails by throwing or rejecting. */
export type TestFn<F extends { result: unknown } = Fields> = (fields: F) => unknown | Promise<unknown>;

/** Registers a test. The name is the scored line `[test] <name>`; a name used twice is an error. */
export declare function test(name: string, fn: TestFn): void;

/** `test` with the fields typed, for the editor only: `const test = tests<{ result: Signup }>();`. */
export declare function tests<F extends { result: unknown }>(): (name: string, fn: TestFn<F>) => void;
