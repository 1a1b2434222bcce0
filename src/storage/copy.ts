import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import type { Schema } from './schema.js';

/**
 * Copies a whole installation between databases (SQLite ↔ PostgreSQL), table by table in dependency
 * order, in keyset-paginated batches so large artifacts never sit in memory all at once. The target must
 * be empty; the target's dialect then does what bulk inserts leave undone (sequences, full-text indexes).
 */
interface TableSpec {
  name: keyof Schema;
  /** Columns that order rows uniquely, for keyset pagination. */
  key: string[];
  /** Rows per batch (small for tables holding large documents). */
  batch: number;
}

export const COPY_TABLES: TableSpec[] = [
  { name: 'users', key: ['id'], batch: 500 },
  { name: 'api_keys', key: ['id'], batch: 500 },
  { name: 'usage_hourly', key: ['key_id', 'hour_start'], batch: 1000 },
  { name: 'prompts', key: ['id'], batch: 200 },
  { name: 'prompt_labels', key: ['prompt_id', 'label'], batch: 1000 },
  { name: 'prompt_versions', key: ['prompt_id', 'version'], batch: 50 },
  { name: 'prompt_references', key: ['prompt_id', 'target_slug'], batch: 1000 },
  { name: 'prompt_environments', key: ['prompt_id', 'name'], batch: 1000 },
  { name: 'memories', key: ['seq'], batch: 500 },
  { name: 'memory_tags', key: ['memory_id', 'tag'], batch: 1000 },
  { name: 'memory_versions', key: ['memory_id', 'version'], batch: 50 },
  { name: 'artifacts', key: ['seq'], batch: 10 },
  { name: 'artifact_labels', key: ['artifact_id', 'label'], batch: 1000 },
  { name: 'artifact_versions', key: ['artifact_id', 'version'], batch: 10 },
  { name: 'sessions', key: ['token_hash'], batch: 1000 },
  { name: 'invites', key: ['code_hash'], batch: 1000 },
  { name: 'audit_events', key: ['seq'], batch: 1000 },
  // Webhook endpoints and their subscriptions; the outbox and the delivery log are not copied.
  { name: 'webhook_endpoints', key: ['id'], batch: 500 },
  { name: 'webhook_subscriptions', key: ['endpoint_id', 'event_type'], batch: 1000 },
];

/** Columns a database computes itself and that must not be written. */
const GENERATED = new Set(['search_vector', 'search_tokens']);

export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}

/** Tables addressed by name (the copy walks COPY_TABLES): any table, any column, values as the driver gives them. */
type AnyTables = Record<string, Record<string, unknown>>;
const byName = (database: Database) => database.db as unknown as Kysely<AnyTables>;

export interface CopyReport {
  tables: Array<{ table: string; source: number; target: number }>;
  ok: boolean;
}

async function countRows(db: Kysely<AnyTables>, table: string): Promise<number> {
  const result = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

/** A row as the target database takes it (its dialect converts booleans and JSON). */
function convert(row: Record<string, unknown>, target: Database['dialect']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (!GENERATED.has(column)) out[column] = target.storable(value);
  }
  return out;
}

export async function assertEmpty(target: Database): Promise<void> {
  for (const table of COPY_TABLES) {
    if ((await countRows(byName(target), table.name)) > 0) {
      throw new Error(`The target database is not empty (table ${table.name} has rows); copy into a new database`);
    }
  }
}

export async function copyDatabase(
  source: Database,
  target: Database,
  onProgress: (progress: CopyProgress) => void,
): Promise<CopyReport> {
  const from = byName(source);
  const to = byName(target);
  for (const table of COPY_TABLES) {
    const total = await countRows(from, table.name);
    let copied = 0;
    let last: Record<string, unknown> | undefined;
    onProgress({ table: table.name, copied, total });
    for (;;) {
      let query = from.selectFrom(table.name).selectAll();
      if (last) {
        const cursor = last;
        // Row-value comparison (a, b) > (x, y) works on both databases.
        query = query.where(
          sql<boolean>`(${sql.join(table.key.map((k) => sql.ref(k)))}) > (${sql.join(table.key.map((k) => cursor[k]))})`,
        );
      }
      for (const k of table.key) query = query.orderBy(k);
      const rows = (await query.limit(table.batch).execute()) as Record<string, unknown>[];
      if (rows.length === 0) break;
      await to
        .insertInto(table.name)
        .values(rows.map((row) => convert(row, target.dialect)))
        .execute();
      copied += rows.length;
      last = rows[rows.length - 1];
      onProgress({ table: table.name, copied, total });
    }
  }

  // Sequences and full-text indexes the target keeps itself.
  await target.dialect.afterCopy(target.db);

  const tables = [];
  for (const table of COPY_TABLES) {
    tables.push({
      table: table.name,
      source: await countRows(from, table.name),
      target: await countRows(to, table.name),
    });
  }
  return { tables, ok: tables.every((t) => t.source === t.target) };
}
