import { type Compilable, type Kysely, type RawBuilder, sql } from 'kysely';
import type { AuditEntry } from '../domain/common/audit.js';
import { webhookEventFromAudit, webhookPayload } from '../domain/webhooks/webhook-events.js';
import { AUDIT_COLUMNS, auditRow } from './audit-store.js';
import type { MemorySearch } from './dialects/sql-dialect.js';
import { precompiledVariants, precompileStatement } from './precompiled.js';
import type { Schema } from './schema.js';
import { deliveriesOf } from './webhook-store.js';

/** What a new memory's index writes need besides its row: its tags and distinct analysed words. */
export interface NewMemoryIndex {
  tags: readonly string[];
  terms: readonly string[];
}

/** A new memory: its row (a value for each of the columns given to oneStatementCreate) and index. */
export interface NewMemory {
  row: Readonly<Record<string, unknown>>;
  index: NewMemoryIndex;
}

/**
 * Writes new memories of one user in one statement, on `executor` (a transaction, or the database: then the
 * statement is its own transaction). `audit`: a single creation's audit entry, written with it together
 * with its webhook deliveries; a batch appends its audit rows in one insert after.
 */
export type OneStatementCreate = (
  executor: Kysely<Schema>,
  memories: readonly NewMemory[],
  audit?: AuditEntry,
) => Promise<void>;

type Variant = 'one' | 'many' | 'one, audited' | 'one, audited and delivered';

/**
 * PostgreSQL's type of each memory row column, for the arrays the rows arrive in (one parameter per column,
 * whatever the number of memories: a statement of one shape, prepared once).
 */
const ROW_TYPES: Readonly<Record<string, string>> = {
  id: 'text',
  user_id: 'text',
  text: 'text',
  project_name: 'text',
  category: 'text',
  priority: 'text',
  priority_rank: 'int',
  tags_text: 'text',
  metadata: 'jsonb',
  created_at: 'text',
  updated_at: 'text',
  last_accessed_at: 'text',
  recency_ms: 'bigint',
  search_terms: 'text',
  token_count: 'int',
  text_key: 'text',
  expires_at: 'text',
  pinned: 'boolean',
  superseded_by: 'text',
  visible_until: 'text',
};

/**
 * Where every statement is a round trip (PostgreSQL: the dialect's memory search has `newMemoryParts`), the
 * writes of new memories as ONE statement of data-modifying CTEs instead of one statement each: their rows
 * (`m`, whose `seq` and `id` the others read), tags, postings, term counts and search statistics, and for a
 * single create its audit row and webhook deliveries. A create made six round trips for these (ten with
 * its transaction and duplicate checks), a batch item three, and on a loopback connection each costs about
 * what its query does (docs/performance.md, session 16). Two shapes: one memory's row as a VALUES list,
 * several memories' rows as one array parameter per column (one shape for any number); the postings are
 * split from the new rows' `search_terms` in the statement, and the term counts come as two arrays. Each
 * variant is built and compiled once and runs as a named prepared statement (precompiled.ts, database.ts).
 * `columns`: the memory row's columns. Undefined where the dialect has no such parts (SQLite: no round
 * trips, and no data-modifying CTEs).
 */
export function oneStatementCreate(
  db: Kysely<Schema>,
  search: MemorySearch,
  columns: readonly string[],
): OneStatementCreate | undefined {
  const newMemoryParts = search.newMemoryParts;
  if (newMemoryParts === undefined) return undefined;
  const types = columns.map((column) => {
    const type = ROW_TYPES[column];
    if (type === undefined) throw new Error(`oneStatementCreate: no PostgreSQL type for memories.${column}`);
    return type;
  });
  const ROWS = columns.length;
  // Then: user id, the tags' memory ids and tags, the distinct terms of all the memories, how many hold
  // each, documents, tokens.
  const AUDIT = ROWS + 7;
  const EVENT = AUDIT + AUDIT_COLUMNS.length;
  const arity = {
    one: AUDIT,
    many: AUDIT,
    'one, audited': EVENT,
    'one, audited and delivered': EVENT + 4,
  } satisfies Record<Variant, number>;

  const statement = (variant: Variant) =>
    precompileStatement((...markers: unknown[]) => {
      const [userId, tagIds, tags, terms, counts, documents, tokens] = markers.slice(ROWS, AUDIT) as [
        string,
        string[],
        string[],
        string[],
        number[],
        number,
        number,
      ];
      const names = sql.join(columns.map((column) => sql.id(column)));
      const returning = sql`returning seq, id, user_id, search_terms, priority, project_name`;
      const rows =
        variant === 'many'
          ? // One array per column; in the arrays' order, so the new rows' seq grows as it did one by one.
            sql`insert into memories (${names})
              select ${sql.join(columns.map((column) => sql.ref(`r.${column}`)))}
              from unnest(${sql.join(columns.map((_, i) => sql`${markers[i]}::${sql.raw(types[i] as string)}[]`))})
                with ordinality as r(${names}, ord)
              order by r.ord
              ${returning}`
          : sql`insert into memories (${names}) values (${sql.join(columns.map((_, i) => markers[i]))}) ${returning}`;
      const parts: [string, Compilable<unknown> | RawBuilder<unknown>][] = [
        ['m', rows],
        [
          'tags',
          sql`insert into memory_tags (memory_id, user_id, tag)
            select m.id, m.user_id, t.tag from unnest(${tagIds}::text[], ${tags}::text[]) as t(id, tag)
            join m on m.id = t.id`,
        ],
        ...newMemoryParts({ userId, terms, counts, documents, tokens }),
      ];
      if (variant !== 'one' && variant !== 'many') {
        const audit = Object.fromEntries(AUDIT_COLUMNS.map((column, i) => [column, markers[AUDIT + i]]));
        parts.push(['audit', db.insertInto('audit_events').values(audit as never)]);
      }
      if (variant === 'one, audited and delivered') {
        const [type, occurredAt, payload, id] = markers.slice(EVENT) as [string, string, string, string];
        parts.push(['deliveries', deliveriesOf(db, { id, userId, type, occurredAt, payload })]);
      }
      const query = sql`with ${sql.join(parts.map(([name, part]) => sql`${sql.raw(name)} as (${part})`))}
        select count(*) as n from m`;
      return { compile: () => query.compile(db) };
    }, arity[variant]);
  const statements = precompiledVariants(statement, 4);

  return async (executor, memories, audit) => {
    const [first] = memories;
    if (first === undefined) return;
    if (audit !== undefined && memories.length > 1) throw new Error('oneStatementCreate: one audit entry, one memory');
    const userId = first.row.user_id;
    const one = memories.length === 1;
    const args: unknown[] = columns.map((column) => {
      const values = memories.map(({ row }) => {
        const value = row[column];
        if (value === undefined) throw new Error(`oneStatementCreate: no value for ${column}`);
        return value;
      });
      return one ? values[0] : values;
    });
    const tagIds: unknown[] = [];
    const tags: string[] = [];
    const documents = new Map<string, number>();
    let tokens = 0;
    for (const { row, index } of memories) {
      if (row.user_id !== userId) throw new Error('oneStatementCreate: memories of more than one user');
      for (const tag of index.tags) {
        tagIds.push(row.id);
        tags.push(tag);
      }
      for (const term of index.terms) documents.set(term, (documents.get(term) ?? 0) + 1);
      tokens += Number(row.token_count);
    }
    // Sorted: the order the term counts' rows are locked in, as every other vocabulary write does.
    const terms = [...documents.keys()].sort();
    args.push(
      userId,
      tagIds,
      tags,
      terms,
      terms.map((term) => documents.get(term)),
      memories.length,
      tokens,
    );
    let variant: Variant = one ? 'one' : 'many';
    if (audit !== undefined) {
      const auditValues = auditRow(audit);
      args.push(...AUDIT_COLUMNS.map((column) => auditValues[column]));
      variant = 'one, audited';
      // The event the audit log would enqueue (audit-store.ts appendAudit), when creations are subscribable.
      const event = webhookEventFromAudit({ ...audit, id: auditValues.id, handle: auditValues.object_handle });
      if (event !== null) {
        args.push(event.type, event.occurredAt, webhookPayload(event), event.id);
        variant = 'one, audited and delivered';
      }
    }
    const [written] = await statements(variant)(executor, ...args);
    if (Number((written as { n?: unknown } | undefined)?.n) !== memories.length) {
      throw new Error('insert into memories wrote another number of rows');
    }
  };
}
