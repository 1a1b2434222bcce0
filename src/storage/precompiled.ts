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
  const markers = Array.from({ length: arity }, (_, i) => `\u0000precompiled argument ${i}\u0000`);
  const compiled = build(...(markers as Args)).compile();
  const slots = compiled.parameters.map((parameter) => markers.indexOf(parameter as string));
  for (let i = 0; i < arity; i++) {
    if (!slots.includes(i)) throw new Error(`precompile: argument ${i} is not a parameter of ${compiled.sql}`);
  }
  return async (...args) => {
    const query: CompiledQuery<Row> = {
      ...compiled,
      parameters: slots.map((slot, i) => (slot < 0 ? compiled.parameters[i] : args[slot])),
    };
    return (await db.executeQuery(query)).rows;
  };
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
