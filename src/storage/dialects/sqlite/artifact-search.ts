import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { MigrationDialect } from '../migrations/index.js';
import type { Schema } from '../schema.js';
import { ftsOwnerToken, ftsQuote } from './fts.js';

/** The dialect-specific half of artifact search: keeping the full-text index and the match condition. */
export interface ArtifactSearchDialect {
  index(
    trx: Kysely<Schema>,
    artifact: { seq: number; userId: string; title: string; description: string; content: string },
  ): Promise<void>;
  unindex(trx: Kysely<Schema>, seq: number): Promise<void>;
  /** Every word occurs in the title, description or content of `artifacts`. */
  matchesAll(userId: string, words: string[]): RawBuilder<boolean>;
}

export function artifactSearch(dialect: MigrationDialect): ArtifactSearchDialect {
  if (dialect === 'postgres') {
    return {
      // A generated tsvector column: nothing to keep in step.
      async index() {},
      async unindex() {},
      // Words are letters and digits only, so they need no escaping in tsquery syntax.
      matchesAll: (_userId, words) =>
        sql<boolean>`artifacts.search_vector @@ to_tsquery('english', ${words.join(' & ')})`,
    };
  }
  return {
    async index(trx, artifact) {
      await trx.deleteFrom('artifacts_fts').where('rowid', '=', artifact.seq).execute();
      await trx
        .insertInto('artifacts_fts')
        .values({
          rowid: artifact.seq,
          owner: ftsOwnerToken(artifact.userId),
          title: artifact.title,
          description: artifact.description,
          content: artifact.content,
        })
        .execute();
    },
    async unindex(trx, seq) {
      await trx.deleteFrom('artifacts_fts').where('rowid', '=', seq).execute();
    },
    // The owner token scopes the index query to the user.
    matchesAll: (userId, words) =>
      sql<boolean>`artifacts.seq in (select rowid from artifacts_fts where artifacts_fts match ${`owner:${ftsOwnerToken(userId)} AND {title description content}:(${words.map(ftsQuote).join(' AND ')})`})`,
  };
}
