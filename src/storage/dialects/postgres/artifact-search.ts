import { sql } from 'kysely';
import type { ArtifactSearch } from '../sql-dialect.js';

export const postgresArtifactSearch: ArtifactSearch = {
  // A generated tsvector column: nothing to keep in step.
  async index() {},
  async unindex() {},
  // Words are letters and digits only, so they need no escaping in tsquery syntax.
  matchesAll: (_userId, words) => sql<boolean>`artifacts.search_vector @@ to_tsquery('english', ${words.join(' & ')})`,
};
