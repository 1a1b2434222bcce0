import { type Kysely, type Migration, type RawBuilder, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/** pgvector's largest `vector` (its VECTOR_MAX_DIM). */
const PGVECTOR_MAX_DIMENSIONS = 16_000;
/** Rows converted per round trip (a stored vector is at most 16,384 × 4 bytes). */
const BATCH = 500;
const NOT_CONVERTIBLE =
  'migration 0016: the stored vector could not be converted to pgvector (wrong size or a value that is not finite)';

export interface PgvectorChoice {
  /** Whether to use pgvector; by default whether the server offers the extension. Tests pass `false`. */
  available?: (db: Kysely<any>) => Promise<boolean>;
}

/**
 * PostgreSQL: `memory_embeddings.vector` becomes pgvector's `vector` (no fixed dimension: each row's model
 * decides its size), when the server offers the extension and this role may create it; the similarity scan
 * then runs in the database over every vector of the user (docs/memory-search.md). Where the extension is
 * not available, or `create extension` is refused, nothing changes: the column stays `bytea` and searches use
 * the bounded scan in the application. The column's type, read at start, tells the server which applies.
 *
 * Existing vectors (float32 little-endian bytes) are rewritten in batches as pgvector's text form
 * `[x,y,…]` (float32 values print and parse back exactly). A vector pgvector cannot hold (a size other than
 * its row's `dimensions`, more than 16,000 dimensions, a value that is not finite) becomes a recorded failure
 * (null vector, `error`), which `cairn embeddings backfill` computes again. SQLite: nothing. Frozen.
 */
export function memoryEmbeddingsPgvector(dialect: MigrationDialect, choice: PgvectorChoice = {}): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await inOneTransaction(db, async (trx) => {
        if (!(await (choice.available ?? offered)(trx))) return;
        const schema = await createExtension(trx);
        if (schema === undefined) return;
        await replaceColumn(trx, sql`${sql.id(schema)}.vector`, (bytes, dimensions) => {
          const text = pgvectorText(bytes as Uint8Array, dimensions);
          return text === null ? { value: null, error: NOT_CONVERTIBLE } : { value: text, error: null };
        });
      });
    },

    /** Back to `bytea`; the extension stays (other objects of the database may use it). */
    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await inOneTransaction(db, async (trx) => {
        if ((await columnType(trx)) !== 'vector') return;
        await replaceColumn(trx, sql`bytea`, (text) => ({ value: float32Bytes(String(text)), error: null }));
      });
    },
  };
}

async function inOneTransaction(db: Kysely<any>, work: (trx: Kysely<any>) => Promise<void>): Promise<void> {
  // Kysely runs PostgreSQL migrations in a transaction; the savepoint below needs one.
  if (db.isTransaction) await work(db);
  else await db.transaction().execute(work);
}

async function offered(db: Kysely<any>): Promise<boolean> {
  const rows = await sql`select 1 from pg_available_extensions where name = 'vector'`.execute(db);
  return rows.rows.length > 0;
}

/** The schema pgvector lives in, or undefined when `create extension` was refused (e.g. not a superuser). */
async function createExtension(db: Kysely<any>): Promise<string | undefined> {
  await sql`savepoint cairn_pgvector`.execute(db);
  try {
    await sql`create extension if not exists vector`.execute(db);
  } catch {
    await sql`rollback to savepoint cairn_pgvector`.execute(db);
    return undefined;
  }
  await sql`release savepoint cairn_pgvector`.execute(db);
  const rows = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'vector'`.execute(db);
  return rows.rows[0]?.schema;
}

async function columnType(db: Kysely<any>): Promise<string | undefined> {
  const rows = await sql<{ type: string }>`select t.typname as type from pg_attribute a
    join pg_type t on t.oid = a.atttypid
    where a.attrelid = to_regclass('memory_embeddings') and a.attname = 'vector' and not a.attisdropped`.execute(db);
  return rows.rows[0]?.type;
}

/**
 * `memory_embeddings.vector` as `type`: a new column filled in batches by `convert` (each value sent as
 * text and cast), then put in the old one's place. Rows without a vector (recorded failures) stay null.
 */
async function replaceColumn(
  db: Kysely<any>,
  type: RawBuilder<unknown>,
  convert: (value: unknown, dimensions: number) => { value: string | null; error: string | null },
): Promise<void> {
  await sql`alter table memory_embeddings add column vector_converted ${type}`.execute(db);
  let after: string | undefined;
  for (;;) {
    const rows = (
      await sql<{ seq: unknown; dimensions: unknown; vector: unknown }>`
        select memory_seq as seq, dimensions, vector from memory_embeddings
        where vector is not null ${after === undefined ? sql`` : sql`and memory_seq > ${after}::bigint`}
        order by memory_seq limit ${BATCH}`.execute(db)
    ).rows;
    if (rows.length === 0) break;
    const seqs: string[] = [];
    const values: Array<string | null> = [];
    const errors: Array<string | null> = [];
    for (const row of rows) {
      const converted = convert(row.vector, Number(row.dimensions));
      seqs.push(String(row.seq));
      values.push(converted.value);
      errors.push(converted.error);
    }
    await sql`update memory_embeddings e
      set vector_converted = v.value::${type},
        error = coalesce(v.error, e.error)
      from unnest(${seqs}::bigint[], ${values}::text[], ${errors}::text[]) as v(seq, value, error)
      where e.memory_seq = v.seq`.execute(db);
    after = seqs[seqs.length - 1];
  }
  await sql`alter table memory_embeddings drop column vector`.execute(db);
  await sql`alter table memory_embeddings rename column vector_converted to vector`.execute(db);
}

/** Float32 little-endian bytes as pgvector's text form; null when pgvector cannot hold them as this row's vector. */
function pgvectorText(bytes: Uint8Array, dimensions: number): string | null {
  const size = Math.floor(bytes.byteLength / 4);
  if (size < 1 || size > PGVECTOR_MAX_DIMENSIONS || size !== dimensions) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values: string[] = [];
  for (let i = 0; i < size; i++) {
    const value = view.getFloat32(i * 4, true);
    if (!Number.isFinite(value)) return null;
    values.push(String(value));
  }
  return `[${values.join(',')}]`;
}

/** pgvector's text form `[x,y,…]` as float32 little-endian bytes, in bytea's hex input form. */
function float32Bytes(text: string): string {
  const values = text.slice(1, -1).split(',').map(Number);
  const bytes = Buffer.alloc(values.length * 4);
  for (const [i, value] of values.entries()) bytes.writeFloatLE(value, i * 4);
  return `\\x${bytes.toString('hex')}`;
}
