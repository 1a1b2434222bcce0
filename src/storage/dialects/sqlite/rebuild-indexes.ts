import type { Kysely, Transaction } from 'kysely';
import type { Schema } from '../../schema.js';
import { sqliteArtifactSearch } from './artifact-search.js';
import { createSqliteMemorySearch } from './memory-search.js';

/** Indexes `rows` one by one inside a single transaction. */
async function indexInOneTransaction<T>(
  db: Kysely<Schema>,
  rows: T[],
  index: (trx: Transaction<Schema>, row: T) => Promise<unknown>,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const row of rows) await index(trx, row);
  });
}

/** SQLite keeps its full-text indexes itself (contentless FTS5): fill them from rows copied in bulk. */
export async function rebuildFullTextIndexes(db: Kysely<Schema>): Promise<void> {
  const memorySearch = createSqliteMemorySearch(db);
  const memories = await db
    .selectFrom('memories')
    .select(['seq', 'user_id', 'project_name', 'priority', 'search_terms', 'token_count'])
    .execute();
  // Also fills each user's search statistics (memory_search_stats), which are not copied.
  await indexInOneTransaction(db, memories, (trx, m) =>
    memorySearch.index(trx, {
      seq: Number(m.seq),
      userId: m.user_id,
      projectName: m.project_name,
      priority: m.priority,
      searchTerms: m.search_terms,
      tokenCount: Number(m.token_count),
    }),
  );
  let last = 0;
  for (;;) {
    const batch = await db
      .selectFrom('artifacts')
      .select(['seq', 'user_id', 'title', 'description', 'content'])
      .where('seq', '>', last)
      .orderBy('seq')
      .limit(10)
      .execute();
    if (batch.length === 0) break;
    await indexInOneTransaction(db, batch, (trx, a) =>
      sqliteArtifactSearch.index(trx, {
        seq: Number(a.seq),
        userId: a.user_id,
        title: a.title,
        description: a.description,
        content: a.content,
      }),
    );
    last = Number(batch[batch.length - 1]?.seq);
  }
}
