import { createHash } from 'node:crypto';
import { type Kysely, type Migration, sql } from 'kysely';
import type { MigrationDialect } from './index.js';

/**
 * Duplicates on write (issue 18, item 4): `memories.text_key`, a hash of the project and normalised text,
 * and an index on (user_id, text_key) so the exact-duplicate check of a create is one index lookup.
 * Existing rows are keyed here in batches (this migration's own copy of the key as written; migrations
 * never import application code). Not unique: stored memories may already be duplicates of each other,
 * and a create takes the first stored; concurrent creates are kept apart by the write transaction instead.
 * Frozen.
 */
const normalize = (text: string) =>
  text
    .normalize('NFC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/[.!?;:,…]+$/u, '')
    .trimEnd();
const textKey = (text: string, projectName: string | null) =>
  createHash('sha256')
    .update(`${projectName === null ? '\u0000' : `p${projectName}`}\u0000${normalize(text)}`)
    .digest('base64url');
const BATCH = 500;

export function memoryDedupe(_dialect: MigrationDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('memories').addColumn('text_key', 'text').execute();
      let last = 0;
      for (;;) {
        const rows: Array<{ seq: number | string; text: string; project_name: string | null }> = await db
          .selectFrom('memories')
          .select(['seq', 'text', 'project_name'])
          .where('seq', '>', last)
          .orderBy('seq')
          .limit(BATCH)
          .execute();
        if (rows.length === 0) break;
        // One statement per batch (UPDATE … FROM a VALUES list, both databases), not a round trip per memory.
        const values = rows.map((row) => sql`(cast(${row.seq} as bigint), ${textKey(row.text, row.project_name)})`);
        await sql`with v(seq, text_key) as (values ${sql.join(values)})
          update memories set text_key = v.text_key from v where memories.seq = v.seq`.execute(db);
        if (rows.length < BATCH) break;
        last = Number(rows[rows.length - 1]?.seq);
      }
      await db.schema.createIndex('memories_text_key').on('memories').columns(['user_id', 'text_key']).execute();
    },

    async down(db: Kysely<any>) {
      await db.schema.dropIndex('memories_text_key').execute();
      await db.schema.alterTable('memories').dropColumn('text_key').execute();
    },
  };
}
