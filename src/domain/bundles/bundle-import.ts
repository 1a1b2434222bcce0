import { artifactUnchanged, newArtifactRecord } from '../artifacts/artifact-records.js';
import { createArtifactBody } from '../artifacts/artifact-schemas.js';
import type { Actor } from '../common/actor.js';
import { ConflictError } from '../common/errors.js';
import { derivedId, isId } from '../common/ids.js';
import { createMemoryBody } from '../memories/memory-schemas.js';
import { memoryUnchanged } from '../memories/memory-service.js';
import { newPromptRecord, promptUnchanged } from '../prompts/prompt-records.js';
import { createPromptBody } from '../prompts/prompt-schemas.js';
import type { RawLine } from './bundle-lines.js';
import { artifactInput, keptPromptVersion, keptVersion, noCounts, promptInput } from './bundle-mapping.js';
import {
  type BundleArtifact,
  type BundleMemory,
  type BundlePrompt,
  bundleLine,
  type ImportResult,
} from './bundle-schemas.js';
import type { BundleServiceDeps } from './bundle-service.js';

const IMPORT_MESSAGE = 'Imported';

/**
 * The id a memory gets in this account when its own id is taken by someone else's memory (a bundle
 * imported into a second account): derived from the account and the original id, so importing the same
 * bundle again finds it (idempotent) without ever revealing whose the original id is.
 */
const derivedMemoryId = (userId: string, id: string) => derivedId('mem', `${userId}\n${id}`);

/** Pass 2: each item created, updated or left alone (only counted in a dry run). */
export async function applyBundle(
  deps: BundleServiceDeps,
  actor: Actor,
  lines: AsyncIterable<RawLine>,
  dryRun: boolean,
): Promise<ImportResult> {
  const result: ImportResult = { dry_run: dryRun, created: noCounts(), updated: noCounts(), unchanged: noCounts() };
  /** The artifact just created, which takes the kept versions that follow it. */
  let fresh: { id: string; address: string } | undefined;
  for await (const { text } of lines) {
    if (text.trim() === '') continue;
    const item = bundleLine.parse(JSON.parse(text));
    if (item.type !== 'artifact_version') fresh = undefined;
    switch (item.type) {
      case 'prompt':
        result[await applyPrompt(deps, actor, item, dryRun)].prompts++;
        break;
      case 'memory':
        result[await applyMemory(deps, actor, item, dryRun)].memories++;
        break;
      case 'artifact': {
        const outcome = await applyArtifact(deps, actor, item, dryRun);
        result[outcome.change].artifacts++;
        fresh = outcome.createdId ? { id: outcome.createdId, address: `${item.project}/${item.slug}` } : undefined;
        break;
      }
      case 'artifact_version':
        if (fresh && !dryRun && fresh.address === `${item.project}/${item.slug}`) {
          await deps.bundles.insertArtifactVersion(actor.userId, fresh.id, keptVersion(item));
        }
        break;
      default:
        break;
    }
  }
  return result;
}

type Change = 'created' | 'updated' | 'unchanged';

async function applyPrompt(deps: BundleServiceDeps, actor: Actor, p: BundlePrompt, dryRun: boolean): Promise<Change> {
  const data = createPromptBody.parse(promptInput(p));
  const variableSchema = data.variable_schema ?? {};
  const existing = await deps.prompts.findBySlug(actor.userId, p.slug);
  if (existing) {
    const fields = {
      title: data.title,
      description: data.description,
      content: data.content,
      status: data.status,
      available_in_mcp: data.available_in_mcp,
      labels: data.labels,
      variable_schema: variableSchema,
    };
    if (promptUnchanged(existing, fields)) return 'unchanged';
    if (!dryRun) await deps.promptService.update(actor, existing.id, { ...fields, commit_message: IMPORT_MESSAGE });
    return 'updated';
  }
  if (dryRun) return 'created';
  const versions = p.versions.map(keptPromptVersion).sort((a, b) => a.version - b.version);
  if (!versions.some((v) => v.version === p.version)) {
    versions.push({
      version: p.version,
      title: data.title,
      description: data.description,
      content: data.content,
      labels: data.labels,
      variable_schema: variableSchema,
      commit_message: null,
      created_at: p.updated_at,
    });
  }
  const record = newPromptRecord(data, {
    id: isId('prm', p.id) ? p.id : deps.ids('prm'),
    userId: actor.userId,
    slug: p.slug,
    version: p.version,
    createdAt: p.created_at,
    updatedAt: p.updated_at,
  });
  await insertWithFreeId(
    () => deps.prompts.insert(record, versions),
    async () => !(await deps.prompts.findBySlug(actor.userId, p.slug)),
    () => {
      record.id = deps.ids('prm');
    },
  );
  return 'created';
}

async function applyMemory(deps: BundleServiceDeps, actor: Actor, m: BundleMemory, dryRun: boolean): Promise<Change> {
  const data = createMemoryBody.parse({ text: m.text, project_name: m.project_name, metadata: m.metadata });
  const derived = derivedMemoryId(actor.userId, m.memory_id);
  const existing =
    (await deps.memories.findById(actor.userId, m.memory_id)) ?? (await deps.memories.findById(actor.userId, derived));
  const projectName = data.project_name ?? null;
  const metadata = data.metadata ?? {};
  if (existing) {
    if (memoryUnchanged(existing, { text: data.text, projectName, metadata })) return 'unchanged';
    if (!dryRun) {
      await deps.memories.update(actor.userId, existing.id, { text: data.text, projectName, metadata }, m.updated_at);
    }
    return 'updated';
  }
  if (dryRun) return 'created';
  const record = {
    id: m.memory_id,
    userId: actor.userId,
    text: data.text,
    projectName,
    metadata,
    createdAt: m.created_at,
    updatedAt: m.updated_at,
    lastAccessedAt: m.last_accessed_at,
  };
  if (!(await deps.bundles.insertMemory(record))) {
    // The id belongs to another account's memory: this account gets its own, stable one.
    if (!(await deps.bundles.insertMemory({ ...record, id: derived }))) {
      throw new ConflictError(`Memory ${m.memory_id} could not be given an id; import again`);
    }
  }
  return 'created';
}

async function applyArtifact(
  deps: BundleServiceDeps,
  actor: Actor,
  a: BundleArtifact,
  dryRun: boolean,
): Promise<{ change: Change; createdId?: string }> {
  const data = createArtifactBody.parse(artifactInput(a));
  const existing = await deps.artifacts.find(actor.userId, data.project, a.slug);
  if (existing) {
    const fields = {
      title: data.title,
      description: data.description,
      content: data.content,
      content_type: data.content_type,
      labels: data.labels,
      metadata: data.metadata,
    };
    if (artifactUnchanged(existing, fields)) return { change: 'unchanged' };
    if (!dryRun) await deps.artifactService.update(actor, data.project, a.slug, fields);
    return { change: 'updated' };
  }
  if (dryRun) return { change: 'created' };
  const record = newArtifactRecord(data, {
    id: isId('art', a.id) ? a.id : deps.ids('art'),
    userId: actor.userId,
    slug: a.slug,
    version: a.version,
    versionCreatedAt: a.updated_at,
    createdAt: a.created_at,
    updatedAt: a.updated_at,
  });
  await insertWithFreeId(
    () => deps.artifacts.insert(record),
    async () => !(await deps.artifacts.find(actor.userId, data.project, a.slug)),
    () => {
      record.id = deps.ids('art');
    },
  );
  return { change: 'created', createdId: record.id };
}

/**
 * Inserts keeping the bundle's id when it is free. A conflict while the address (slug) is still free
 * means the id is taken (the bundle came from another account on this server): a new id, once.
 */
async function insertWithFreeId(
  insert: () => Promise<void>,
  addressFree: () => Promise<boolean>,
  renew: () => void,
): Promise<void> {
  try {
    await insert();
  } catch (error) {
    if (!(error instanceof ConflictError) || !(await addressFree())) throw error;
    renew();
    await insert();
  }
}
