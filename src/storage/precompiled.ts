import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Schema } from './schema.js';

/**
 * A query of the hot path built and compiled by Kysely once, then run with new arguments: compiling walks
 * the whole operation tree, which costs more than running a small indexed query (issue 15,
 * docs/performance.md). The query is built with a marker for each argument; the compiled parameters that
 * are markers take the arguments, the others (constants of the query) stay. On SQLite the statement is
 * then prepared once as well (the connection caches statements by SQL text, database.ts).
 */
export function precompile<Row, Args extends unknown[]>(
  db: Kysely<Schema>,
  build: (...markers: Args) => Compilable<Row>,
  arity: Args['length'],
): (...args: Args) => Promise<Row[]> {
  const bind = compileWithMarkers(build, arity);
  return async (...args) => (await db.executeQuery(bind(args))).rows;
}

/**
 * The same for a write: compiled once with `db`, run on the executor each call names — the caller's
 * transaction (`precompile` runs on the instance it was built with, outside any transaction). An argument
 * may be null but never undefined (a builder leaves an undefined value's column out, a compiled statement
 * cannot).
 */
export function precompileStatement<Row, Args extends unknown[]>(
  build: (...markers: Args) => Compilable<Row>,
  arity: Args['length'],
): (executor: Kysely<Schema>, ...args: Args) => Promise<Row[]> {
  const bind = compileWithMarkers(build, arity);
  return async (executor, ...args) => (await executor.executeQuery(bind(args))).rows;
}

/**
 * The SQL texts compiled once, each named for a server-side prepared statement: PostgreSQL connections
 * run them by name (database.ts), so the server parses and plans each once per connection. Bounded: texts
 * past the limit (a variant compiled per call, precompiledVariants) run unnamed.
 */
const preparedNames = new Map<string, string>();
const MAX_PREPARED_NAMES = 500;

/** The prepared statement name of a text compiled once, or undefined. */
export const preparedStatementName = (sql: string): string | undefined => preparedNames.get(sql);

function compileWithMarkers<Row, Args extends unknown[]>(
  build: (...markers: Args) => Compilable<Row>,
  arity: number,
): (args: Args) => CompiledQuery<Row> {
  const markers = Array.from({ length: arity }, (_, i) => `\u0000precompiled argument ${i}\u0000`);
  const compiled = build(...(markers as Args)).compile();
  if (!preparedNames.has(compiled.sql) && preparedNames.size < MAX_PREPARED_NAMES) {
    preparedNames.set(compiled.sql, `cairn_${preparedNames.size + 1}`);
  }
  const slots = compiled.parameters.map((parameter) => markers.indexOf(parameter as string));
  for (let i = 0; i < arity; i++) {
    if (!slots.includes(i)) throw new Error(`precompile: argument ${i} is not a parameter of ${compiled.sql}`);
  }
  return (args) => ({
    ...compiled,
    parameters: slots.map((slot, i) => (slot < 0 ? compiled.parameters[i] : args[slot])),
  });
}

/**
 * Precompiled variants of a query whose shape depends on a small key (e.g. the length of an IN-list),
 * compiled the first time each is needed; keys past `maxVariants` are compiled per call.
 */
export function precompiledVariants<Key, Row, Args extends unknown[]>(
  compile: (key: Key) => (...args: Args) => Promise<Row[]>,
  maxVariants: number,
): (key: Key) => (...args: Args) => Promise<Row[]> {
  const variants = new Map<Key, (...args: Args) => Promise<Row[]>>();
  return (key) => {
    let variant = variants.get(key);
    if (!variant) {
      variant = compile(key);
      if (variants.size < maxVariants) variants.set(key, variant);
    }
    return variant;
  };
}

/**
 * An INSERT of one row of exactly `columns` into `table` (optionally returning one column), compiled once
 * with `db` and run on each call's executor. The row must name every column (null for none): a missing one
 * is a programming error, thrown before anything is written.
 */
export function precompiledInsert(
  db: Kysely<Schema>,
  table: keyof Schema & string,
  columns: readonly string[],
  returning?: string,
): (executor: Kysely<Schema>, row: Readonly<Record<string, unknown>>) => Promise<Record<string, unknown>[]> {
  const statement = precompileStatement((...markers: unknown[]) => {
    const insert = db
      .insertInto(table)
      .values(Object.fromEntries(columns.map((column, i) => [column, markers[i]])) as never);
    return (returning === undefined ? insert : insert.returning(returning as never)) as Compilable<
      Record<string, unknown>
    >;
  }, columns.length);
  return (executor, row) => {
    const args = columns.map((column) => {
      const value = row[column];
      if (value === undefined) throw new Error(`precompiledInsert into ${table}: no value for ${column}`);
      return value;
    });
    return statement(executor, ...args);
  };
}
