import type { Kysely } from 'kysely';
import type { Change } from '../domain/common/audit.js';
import type {
  EnvironmentTarget,
  PromptEnvironmentRecord,
  SetEnvironmentOutcome,
} from '../domain/prompts/prompt-store.js';
import { appendAudit, auditEntry } from './audit-store.js';
import { readBool, readCount, writeBool } from './codec.js';
import { bumpPromptsStamp, toVersion } from './prompt-store.js';
import type { Schema } from './schema.js';

// Prompt environments: named pointers from a prompt to one of its versions (migration 0012).

export async function listEnvironments(
  db: Kysely<Schema>,
  userId: string,
  promptId: string,
): Promise<PromptEnvironmentRecord[]> {
  const rows = await db
    .selectFrom('prompt_environments')
    .select(['name', 'version', 'marketplace', 'updated_at'])
    .where('user_id', '=', userId)
    .where('prompt_id', '=', promptId)
    .orderBy('name')
    .execute();
  return rows.map((row) => ({
    name: row.name,
    version: row.version,
    marketplace: readBool(row.marketplace),
    updatedAt: row.updated_at,
  }));
}

/** The version a pointer targets, joined in one query. */
export async function environmentVersion(
  db: Kysely<Schema>,
  userId: string,
  promptId: string,
  target: EnvironmentTarget,
) {
  let query = db
    .selectFrom('prompt_environments as e')
    .innerJoin('prompt_versions as v', (join) =>
      join.onRef('v.prompt_id', '=', 'e.prompt_id').onRef('v.version', '=', 'e.version'),
    )
    .selectAll('v')
    .select('e.name as environment')
    .where('e.user_id', '=', userId)
    .where('e.prompt_id', '=', promptId)
    .where('v.user_id', '=', userId);
  query =
    'name' in target ? query.where('e.name', '=', target.name) : query.where('e.marketplace', '=', writeBool(true));
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const { environment, ...version } = row;
  return { environment, version: toVersion(version) };
}

export async function setEnvironment(
  db: Kysely<Schema>,
  userId: string,
  promptId: string,
  environment: PromptEnvironmentRecord,
  maxCount: number,
  change: Change,
): Promise<SetEnvironmentOutcome> {
  return db.transaction().execute(async (trx) => {
    await bumpPromptsStamp(trx, userId);
    // A no-op update of the prompt row: it says whether the prompt exists and locks the row (on PostgreSQL;
    // SQLite write transactions are serial already), so concurrent pointer writes of one prompt take turns
    // and the count bound holds.
    const locked = await trx
      .updateTable('prompts')
      .set((eb) => ({ version: eb.ref('version') }))
      .where('user_id', '=', userId)
      .where('id', '=', promptId)
      .executeTakeFirst();
    if (locked.numUpdatedRows === 0n) return 'no_prompt';
    const version = await trx
      .selectFrom('prompt_versions')
      .select('version')
      .where('user_id', '=', userId)
      .where('prompt_id', '=', promptId)
      .where('version', '=', environment.version)
      .executeTakeFirst();
    if (!version) return 'no_version';
    const others = await trx
      .selectFrom('prompt_environments')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('user_id', '=', userId)
      .where('prompt_id', '=', promptId)
      .where('name', '<>', environment.name)
      .executeTakeFirstOrThrow();
    if (readCount(others.n as number | string | bigint) >= maxCount) return 'too_many';
    if (environment.marketplace) {
      await trx
        .updateTable('prompt_environments')
        .set({ marketplace: writeBool(false) })
        .where('user_id', '=', userId)
        .where('prompt_id', '=', promptId)
        .where('name', '<>', environment.name)
        .execute();
    }
    const values = {
      version: environment.version,
      marketplace: writeBool(environment.marketplace),
      updated_at: environment.updatedAt,
    };
    await trx
      .insertInto('prompt_environments')
      .values({ prompt_id: promptId, user_id: userId, name: environment.name, ...values })
      .onConflict((oc) => oc.columns(['prompt_id', 'name']).doUpdateSet(values))
      .execute();
    await appendAudit(trx, environmentChange(change, userId, promptId, environment.name, 'moved'));
    return 'set';
  });
}

export async function removeEnvironment(
  db: Kysely<Schema>,
  userId: string,
  promptId: string,
  name: string,
  change: Change,
) {
  return db.transaction().execute(async (trx) => {
    await bumpPromptsStamp(trx, userId);
    const result = await trx
      .deleteFrom('prompt_environments')
      .where('user_id', '=', userId)
      .where('prompt_id', '=', promptId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) return false;
    await appendAudit(trx, environmentChange(change, userId, promptId, name, 'deleted'));
    return true;
  });
}

/**
 * The audit entry (and so the `environment.moved` webhook event) of a pointer write: the object is the
 * prompt's pointer, named `<prompt id>:<environment>`; pointers carry no content, so no hashes.
 */
const environmentChange = (
  change: Change,
  userId: string,
  promptId: string,
  name: string,
  action: 'moved' | 'deleted',
) =>
  auditEntry(change, userId, {
    objectType: 'prompt_environment',
    objectId: `${promptId}:${name}`,
    objectHandle: name,
    action,
    hashBefore: null,
    hashAfter: null,
  });

export async function marketplaceVersions(db: Kysely<Schema>, userId: string, promptIds: string[]) {
  if (promptIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('prompt_environments as e')
    .innerJoin('prompt_versions as v', (join) =>
      join.onRef('v.prompt_id', '=', 'e.prompt_id').onRef('v.version', '=', 'e.version'),
    )
    .selectAll('v')
    .where('e.user_id', '=', userId)
    .where('e.prompt_id', 'in', promptIds)
    .where('e.marketplace', '=', writeBool(true))
    .execute();
  return new Map(rows.map((row) => [row.prompt_id, toVersion(row)]));
}
