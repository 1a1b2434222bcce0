import { artifactUnchanged, newArtifactRecord } from '../artifacts/artifact-records.js';
import { createArtifactBody } from '../artifacts/artifact-schemas.js';
import type { Actor } from '../common/actor.js';
import { changeBy } from '../common/audit.js';
import { ConflictError } from '../common/errors.js';
import { derivedId, isId } from '../common/ids.js';
import { sameJson } from '../common/json.js';
import { historyWrite } from '../memories/memory-history.js';
import { createMemoryBody } from '../memories/memory-schemas.js';
import { memoryUnchanged } from '../memories/memory-service.js';
import { newPromptRecord, promptUnchanged } from '../prompts/prompt-records.js';
import { createPromptBody } from '../prompts/prompt-schemas.js';
import type { RawLine } from './bundle-lines.js';
import {
  artifactInput,
  keptMemoryVersion,
  keptPromptVersion,
  keptVersion,
  noCounts,
  promptInput,
} from './bundle-mapping.js';
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
  // Every change an import makes is recorded under the surface `import` (with the caller's key and client).
  actor = { ...actor, surface: 'import' };
  const result: ImportResult = { dry_run: dryRun, created: noCounts(), updated: noCounts(), unchanged: noCounts() };
  /** Supersede links to restore once every memory is in (the newer memory may come later in the bundle). */
  const links: Array<{ id: string; supersededBy: string | null }> = [];
  /** The artifact just created, which takes the kept versions that follow it. */
  let fresh: { id: string; address: string } | undefined;
  /** Likewise the memory just created (its id in the bundle, its id here, its current version). */
  let freshMemory: { bundleId: string; id: string; version: number } | undefined;
  const keep = historyWrite({ keepVersions: deps.memoryVersionRetention }).keep;
  for await (const { text } of lines) {
    if (text.trim() === '') continue;
    const item = bundleLine.parse(JSON.parse(text));
    if (item.type !== 'artifact_version') fresh = undefined;
    if (item.type !== 'memory_version') freshMemory = undefined;
    switch (item.type) {
      case 'prompt':
        result[await applyPrompt(deps, actor, item, dryRun)].prompts++;
        break;
      case 'memory': {
        const outcome = await applyMemory(deps, actor, item, dryRun);
        result[outcome.change].memories++;
        if (outcome.id !== undefined && item.superseded_by !== undefined) {
          links.push({ id: outcome.id, supersededBy: item.superseded_by });
        }
        freshMemory =
          outcome.change === 'created' && outcome.id !== undefined
            ? { bundleId: item.memory_id, id: outcome.id, version: item.version ?? 1 }
            : undefined;
        break;
      }
      case 'memory_version':
        // Only into a memory this import created (an existing one keeps its own history), and only the
        // versions this server's retention keeps.
        if (freshMemory?.bundleId === item.memory_id && item.version >= freshMemory.version - keep) {
          await deps.bundles.insertMemoryVersion(actor.userId, freshMemory.id, keptMemoryVersion(item));
        }
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
  // A link names the newer memory by its bundle id: here as given or derived (its id was another account's);
  // a memory that is not this user's, or not there, leaves the older memory unlinked.
  for (const link of links) {
    const target =
      link.supersededBy === null
        ? undefined
        : ((await deps.memories.findById(actor.userId, link.supersededBy)) ??
          (await deps.memories.findById(actor.userId, derivedMemoryId(actor.userId, link.supersededBy))));
    await deps.memories.setSupersededBy(actor.userId, link.id, target?.id ?? null);
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
    const unchanged = promptUnchanged(existing, fields);
    if (dryRun) return unchanged ? 'unchanged' : 'updated';
    const current = unchanged
      ? existing.version
      : (await deps.promptService.update(actor, existing.id, { ...fields, commit_message: IMPORT_MESSAGE })).version;
    const moved = await applyEnvironments(deps, actor, p, existing.id, (version) =>
      localVersionOf(deps, actor, existing.id, p, version, current),
    );
    return unchanged && !moved ? 'unchanged' : 'updated';
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
    () => deps.prompts.insert(record, versions, changeBy(actor, deps.clock.now())),
    async () => !(await deps.prompts.findBySlug(actor.userId, p.slug)),
    () => {
      record.id = deps.ids('prm');
    },
  );
  // The history came with its numbers, so every pointer keeps its version.
  await applyEnvironments(deps, actor, p, record.id, async (version) => version);
  return 'created';
}

/**
 * Sets the line's environments on the imported prompt (through the service's one pointer write), each to
 * the local version `localVersion` maps its version to; a pointer without one, or already there, is left
 * alone. Pointers the prompt has and the line lacks are kept. True when any pointer was written.
 */
async function applyEnvironments(
  deps: BundleServiceDeps,
  actor: Actor,
  p: BundlePrompt,
  promptId: string,
  localVersion: (version: number) => Promise<number | undefined>,
): Promise<boolean> {
  if (!p.environments || p.environments.length === 0) return false;
  const present = new Map(
    (await deps.prompts.listEnvironments(actor.userId, promptId)).map((e) => [e.name, e] as const),
  );
  let moved = false;
  for (const environment of p.environments) {
    const version = await localVersion(environment.version);
    if (version === undefined) continue;
    const marketplace = environment.marketplace ?? false;
    const now = present.get(environment.name);
    if (now && now.version === version && now.marketplace === marketplace) continue;
    await deps.promptService.setEnvironment(actor, promptId, environment.name, { version, marketplace });
    moved = true;
  }
  return moved;
}

/**
 * For a prompt that already existed (its history numbered its own way): the local version with the same
 * number and the same content as the line's version, else — for the line's current version — the prompt's
 * current version after the import, else none.
 */
async function localVersionOf(
  deps: BundleServiceDeps,
  actor: Actor,
  promptId: string,
  p: BundlePrompt,
  version: number,
  current: number,
): Promise<number | undefined> {
  const line = p.versions.find((v) => v.version === version);
  const local = await deps.prompts.findVersion(actor.userId, promptId, version);
  if (line && local) {
    const wanted = keptPromptVersion(line);
    const same = (['title', 'description', 'content', 'labels', 'variable_schema'] as const).every((field) =>
      sameJson(wanted[field], local[field]),
    );
    if (same) return version;
  }
  return version === p.version ? current : undefined;
}

/** The change, and the memory's id in this account when it was written (not in a dry run). */
async function applyMemory(
  deps: BundleServiceDeps,
  actor: Actor,
  m: BundleMemory,
  dryRun: boolean,
): Promise<{ change: Change; id?: string }> {
  const data = createMemoryBody.parse({ text: m.text, project_name: m.project_name, metadata: m.metadata });
  const derived = derivedMemoryId(actor.userId, m.memory_id);
  const existing =
    (await deps.memories.findById(actor.userId, m.memory_id)) ?? (await deps.memories.findById(actor.userId, derived));
  const projectName = data.project_name ?? null;
  const metadata = data.metadata ?? {};
  const lifecycle = {
    ...(m.expires_at !== undefined && {
      expiresAt: m.expires_at === null ? null : new Date(m.expires_at).toISOString(),
    }),
    ...(m.pinned !== undefined && { pinned: m.pinned }),
  };
  if (existing) {
    const sameLifecycle =
      (lifecycle.expiresAt === undefined || lifecycle.expiresAt === (existing.expiresAt ?? null)) &&
      (lifecycle.pinned === undefined || lifecycle.pinned === (existing.pinned ?? false)) &&
      (m.superseded_by === undefined ||
        m.superseded_by === (existing.supersededBy ?? null) ||
        (m.superseded_by !== null && derivedMemoryId(actor.userId, m.superseded_by) === existing.supersededBy));
    if (memoryUnchanged(existing, { text: data.text, projectName, metadata }) && sameLifecycle) {
      return { change: 'unchanged' };
    }
    if (!dryRun) {
      await deps.memories.update(
        actor.userId,
        existing.id,
        { text: data.text, projectName, metadata, ...lifecycle },
        m.updated_at,
        changeBy(actor, deps.clock.now()),
        {},
        historyWrite({ keepVersions: deps.memoryVersionRetention }),
      );
    }
    return { change: 'updated', ...(!dryRun && { id: existing.id }) };
  }
  if (dryRun) return { change: 'created' };
  const record = {
    id: m.memory_id,
    userId: actor.userId,
    text: data.text,
    projectName,
    metadata,
    createdAt: m.created_at,
    updatedAt: m.updated_at,
    lastAccessedAt: m.last_accessed_at,
    ...lifecycle,
  };
  const change = changeBy(actor, deps.clock.now());
  const version = m.version ?? 1;
  if (await deps.bundles.insertMemory(record, change, version)) return { change: 'created', id: m.memory_id };
  // The id belongs to another account's memory: this account gets its own, stable one.
  if (!(await deps.bundles.insertMemory({ ...record, id: derived }, change, version))) {
    throw new ConflictError(`Memory ${m.memory_id} could not be given an id; import again`);
  }
  return { change: 'created', id: derived };
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
    () => deps.artifacts.insert(record, changeBy(actor, deps.clock.now())),
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
