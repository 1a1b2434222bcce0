import { type Compilable, type Kysely, type RawBuilder, sql } from 'kysely';
import type { AuditEntry } from '../domain/common/audit.js';
import { webhookEventFromAudit, webhookPayload } from '../domain/webhooks/webhook-events.js';
import { AUDIT_COLUMNS, auditRow } from './audit-store.js';
import type { MemorySearch } from './dialects/sql-dialect.js';
import { precompiledVariants, precompileStatement } from './precompiled.js';
import type { Schema } from './schema.js';
import { deliveriesOf } from './webhook-store.js';

/** What a new memory's index writes need besides its row. */
export interface NewMemoryIndex {
  tags: readonly string[];
  /** The memory's distinct analysed words. */
  terms: readonly string[];
  high: boolean;
}

/**
 * Writes one new memory in one statement, on `executor` (a transaction, or the database: then the
 * statement is its own transaction). `audit`: the creation's audit entry, written with it together with its
 * webhook deliveries; left out for a batch's items, whose audit rows the batch appends in one insert.
 */
export type OneStatementCreate = (
  executor: Kysely<Schema>,
  row: Readonly<Record<string, unknown>>,
  index: NewMemoryIndex,
  audit?: AuditEntry,
) => Promise<number>;

type Variant = 'row' | 'audited' | 'audited and delivered';

/**
 * Where every statement is a round trip (PostgreSQL: the dialect's memory search has `newMemoryParts`), a
 * new memory's writes as ONE statement of data-modifying CTEs instead of one statement each: its row (`m`,
 * whose `seq` the others read), tags, postings, term counts and search statistics, audit row and webhook
 * deliveries. A create made six round trips for these (ten with its transaction and duplicate checks), and on
 * a loopback connection each costs about what its query does (docs/performance.md, session 16). Built and
 * compiled once per variant, so it runs as a named prepared statement (precompiled.ts, database.ts).
 * `columns`: the memory row's columns, in the order of the row's values. Undefined where the dialect has no
 * such parts (SQLite: no round trips, and no data-modifying CTEs).
 */
export function oneStatementCreate(
  db: Kysely<Schema>,
  search: MemorySearch,
  columns: readonly string[],
): OneStatementCreate | undefined {
  const newMemoryParts = search.newMemoryParts;
  if (newMemoryParts === undefined) return undefined;
  const ROW = columns.length;
  const AUDIT = ROW + 3;
  const EVENT = AUDIT + AUDIT_COLUMNS.length;
  const arity = { row: AUDIT, audited: EVENT, 'audited and delivered': EVENT + 4 } satisfies Record<Variant, number>;

  const statement = (variant: Variant) =>
    precompileStatement((...markers: unknown[]) => {
      const row: Record<string, unknown> = Object.fromEntries(columns.map((column, i) => [column, markers[i]]));
      const [tags, terms, high] = markers.slice(ROW, AUDIT) as [string[], string[], boolean];
      const parts: [string, Compilable<unknown> | RawBuilder<unknown>][] = [
        [
          'm',
          db
            .insertInto('memories')
            .values(row as never)
            .returning('seq'),
        ],
        [
          'tags',
          sql`insert into memory_tags (memory_id, user_id, tag)
            select ${row.id}, ${row.user_id}, t.tag from unnest(${tags}::text[]) as t(tag)`,
        ],
        ...newMemoryParts({
          userId: row.user_id as string,
          terms,
          high,
          projectName: row.project_name as string | null,
          tokenCount: row.token_count as number,
        }),
      ];
      if (variant !== 'row') {
        const audit = Object.fromEntries(AUDIT_COLUMNS.map((column, i) => [column, markers[AUDIT + i]]));
        parts.push(['audit', db.insertInto('audit_events').values(audit as never)]);
      }
      if (variant === 'audited and delivered') {
        const [type, occurredAt, payload, id] = markers.slice(EVENT) as [string, string, string, string];
        parts.push(['deliveries', deliveriesOf(db, { id, userId: row.user_id as string, type, occurredAt, payload })]);
      }
      const query = sql<{ seq: number | string }>`with ${sql.join(
        parts.map(([name, part]) => sql`${sql.raw(name)} as (${part})`),
      )} select seq from m`;
      return { compile: () => query.compile(db) };
    }, arity[variant]);
  const statements = precompiledVariants(statement, 3);

  return async (executor, row, index, audit) => {
    const args: unknown[] = columns.map((column) => {
      const value = row[column];
      if (value === undefined) throw new Error(`oneStatementCreate: no value for ${column}`);
      return value;
    });
    // Sorted: the order the term counts' rows are locked in, as every other vocabulary write does.
    args.push(index.tags, [...index.terms].sort(), index.high);
    let variant: Variant = 'row';
    if (audit !== undefined) {
      const auditValues = auditRow(audit);
      args.push(...AUDIT_COLUMNS.map((column) => auditValues[column]));
      variant = 'audited';
      // The event the audit log would enqueue (audit-store.ts appendAudit), when creations are subscribable.
      const event = webhookEventFromAudit({ ...audit, id: auditValues.id, handle: auditValues.object_handle });
      if (event !== null) {
        args.push(event.type, event.occurredAt, webhookPayload(event), event.id);
        variant = 'audited and delivered';
      }
    }
    const [inserted] = await statements(variant)(executor, ...args);
    if (!inserted) throw new Error('insert into memories returned no row');
    return Number(inserted.seq);
  };
}
