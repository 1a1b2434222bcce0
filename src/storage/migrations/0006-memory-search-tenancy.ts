import { createHash } from 'node:crypto';
import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * This migration's own copies of the index row format as it stood when it was written (migrations never
 * import application code): owner, scope and priority tokens, and each user's words behind a per-user
 * prefix.
 */
const ownerToken = (userId: string) => `u${userId.replace(/^usr_/, '').toLowerCase()}`;
const projectToken = (prefix: 's' | 'a', project: string) =>
  `${prefix}${createHash('sha256').update(project).digest('hex').slice(0, 20)}`;
const userPrefix = (userId: string) => `w${createHash('sha256').update(userId).digest('hex').slice(0, 16)}`;
const SCOPE_TOKENS = 8;
const BATCH = 500;

function scopeTokens(project: string | null): string {
  const scope = [] as string[];
  if (project === null) scope.push('global');
  else {
    scope.push(projectToken('s', project));
    for (let at = project.indexOf('/'); at !== -1; at = project.indexOf('/', at + 1)) {
      scope.push(projectToken('a', project.slice(0, at)));
    }
  }
  while (scope.length < SCOPE_TOKENS) scope.push('pad');
  return scope.join(' ');
}

/** Refills the contentless index from `memories`, each user's tokens behind `prefixOf(user)`. */
async function rebuildIndex(db: Kysely<any>, prefixOf: (userId: string) => string): Promise<void> {
  // Rows of deleted users are left out too (the contentless index kept them).
  await sql`insert into memories_fts (memories_fts) values ('delete-all')`.execute(db);
  let last = 0;
  for (;;) {
    const rows = await db
      .selectFrom('memories')
      .select(['seq', 'user_id', 'project_name', 'priority', 'search_terms'])
      .where('seq', '>', last)
      .orderBy('seq')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) break;
    await db
      .insertInto('memories_fts')
      .values(
        rows.map((row) => {
          const prefix = prefixOf(row.user_id);
          return {
            rowid: Number(row.seq),
            owner: ownerToken(row.user_id),
            scope: scopeTokens(row.project_name),
            prio: row.priority ?? 'none',
            text: String(row.search_terms)
              .split(' ')
              .filter(Boolean)
              .map((token) => prefix + token)
              .join(' '),
            category: '',
            tags: '',
          };
        }),
      )
      .execute();
    last = Number(rows[rows.length - 1]?.seq);
  }
}

/**
 * Memory search statistics per user (issue 12, item 7): BM25's document count, average length and
 * document frequencies are computed over the searching user's own memories, so another user's writes can
 * never change a user's scores. SQLite: a `memory_search_stats` row per user (count and total tokens, kept
 * in each write's transaction) and the FTS5 index rebuilt with each user's words as distinct terms (so
 * fts5vocab's document frequencies are per user). PostgreSQL ranks with ts_rank_cd, which uses no corpus
 * statistics: nothing to change. Frozen.
 */
export function memorySearchTenancy(dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'postgres') return;
      await db.schema
        .createTable('memory_search_stats')
        .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('documents', 'integer', (c) => c.notNull())
        .addColumn('tokens', 'integer', (c) => c.notNull())
        .execute();
      await sql`insert into memory_search_stats (user_id, documents, tokens)
        select user_id, count(*), sum(token_count) from memories group by user_id`.execute(db);

      await rebuildIndex(db, userPrefix);
    },

    async down(db: Kysely<any>) {
      if (dialect === 'postgres') return;
      await db.schema.dropTable('memory_search_stats').execute();
      // Back to shared terms (text, category and tags in one column match the same way as before).
      await rebuildIndex(db, () => '');
    },
  };
}
