/**
 * A JSON answer as a test reads it: the test asserts its shape itself (toEqual, toMatchObject), so a type
 * here would only restate the assertion. The one `any` the tests use, named for what it is.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above; every other `any` in the tests is an error
export type Json = any;
