import { sql } from 'kysely';
import type { ArtifactSearch } from '../sql-dialect.js';
import { ftsOwnerToken, ftsQuote } from './fts.js';

/** A contentless FTS5 index (`artifacts_fts`), kept in step in each write's transaction. */
export const sqliteArtifactSearch: ArtifactSearch = {
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
