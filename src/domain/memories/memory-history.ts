import { MEMORY_VERSION_RETENTION_DEFAULT } from '../../contract/index.js';
import type { Actor } from '../common/actor.js';
import { changeBy } from '../common/audit.js';
import type { Clock } from '../common/clock.js';
import { NotFoundError } from '../common/errors.js';
import { isId } from '../common/ids.js';
import { listWindow, nextCursor } from '../common/pagination.js';
import { parseInput } from '../common/validation.js';
import { toMemory } from './memory-presenter.js';
import type { MemoryStore, MemoryVersionRecord, MemoryVersionSummaryRecord } from './memory-store.js';
import {
  type ListMemoryVersionsQuery,
  type MemoryRestored,
  type MemoryVersion,
  type MemoryVersionList,
  type MemoryVersionSummary,
  type RestoreMemoryInput,
  restoreMemoryBody,
} from './memory-version-schemas.js';

/**
 * A memory's history, in the artifacts' shape: the memory itself is its current version (version 1 when
 * created, by any path: a create, a batch, an import — no extra row), and each change of its text, project or
 * metadata keeps the state it replaces as a version, in the same transaction (memory-store.ts `update`), up to
 * `keepVersions` of them (MEMORY_VERSION_RETENTION). A restore writes an old version back as a new version,
 * so history is never rewritten.
 */
export interface MemoryHistoryDeps {
  memories: MemoryStore;
  clock: Clock;
  /** Previous versions kept per memory (0 keeps none). */
  keepVersions?: number | undefined;
}

export const RESTORE_MESSAGE = (from: number, to: number) => `Version ${from} restored as version ${to}`;

export const historyWrite = (deps: Pick<MemoryHistoryDeps, 'keepVersions'>, force = false) => ({
  keep: deps.keepVersions ?? MEMORY_VERSION_RETENTION_DEFAULT,
  ...(force && { force }),
});

const toSummary = (v: MemoryVersionSummaryRecord, current: boolean): MemoryVersionSummary => ({
  version: v.version,
  current,
  project_name: v.projectName,
  text_preview: v.textPreview,
  text_length: v.textLength,
  created_at: v.createdAt,
});

const toVersion = (memoryId: string, v: MemoryVersionRecord, current: boolean): MemoryVersion => ({
  memory_id: memoryId,
  version: v.version,
  current,
  text: v.text,
  project_name: v.projectName,
  metadata: v.metadata,
  created_at: v.createdAt,
});

/** Every version, the current one first, then the kept ones newest first; a page or a cursor's window. */
export async function listMemoryVersions(
  { memories }: Pick<MemoryHistoryDeps, 'memories'>,
  actor: Actor,
  id: string,
  query: ListMemoryVersionsQuery,
): Promise<MemoryVersionList> {
  const { offset, page } = listWindow(query);
  // The current version occupies position 0; kept versions follow.
  const found = isId('mem', id)
    ? await memories.versions(actor.userId, id, {
        offset: Math.max(0, offset - 1),
        limit: offset === 0 ? query.per_page - 1 : query.per_page,
      })
    : undefined;
  if (!found) throw new NotFoundError('Memory');
  const versions = [
    ...(offset === 0 ? [toSummary(found.current, true)] : []),
    ...found.kept.map((v) => toSummary(v, false)),
  ];
  const total = found.total + 1;
  return {
    versions,
    total,
    page,
    per_page: query.per_page,
    next_cursor: nextCursor(offset, versions.length, total) ?? null,
  };
}

async function findVersion(memories: MemoryStore, actor: Actor, id: string, version: number) {
  const found = isId('mem', id) ? await memories.findVersion(actor.userId, id, version) : undefined;
  if (!found) throw new NotFoundError('Memory');
  if (!found.found) throw new NotFoundError('Memory version');
  return { version: found.found, current: found.currentVersion === version };
}

export async function getMemoryVersion(
  { memories }: Pick<MemoryHistoryDeps, 'memories'>,
  actor: Actor,
  id: string,
  version: number,
): Promise<MemoryVersion> {
  const found = await findVersion(memories, actor, id, version);
  return toVersion(id, found.version, found.current);
}

/** Makes version `version` current again, as a new version (the one it replaces is kept). */
export async function restoreMemory(
  deps: MemoryHistoryDeps,
  actor: Actor,
  id: string,
  input: RestoreMemoryInput,
): Promise<MemoryRestored> {
  const data = parseInput(restoreMemoryBody, input);
  const record = isId('mem', id) ? await deps.memories.findById(actor.userId, id) : undefined;
  if (!record) throw new NotFoundError('Memory');
  const { version: old } = await findVersion(deps.memories, actor, record.id, data.version);
  const patch = { text: old.text, projectName: old.projectName, metadata: old.metadata };
  const now = deps.clock.now();
  const updatedAt = now.toISOString();
  const history = historyWrite(deps, true);
  const outcome = await deps.memories.update(
    actor.userId,
    record.id,
    patch,
    updatedAt,
    changeBy(actor, now),
    {},
    history,
  );
  if (!outcome) throw new NotFoundError('Memory');
  return {
    ...toMemory({ ...record, ...patch, updatedAt }),
    version: outcome.version,
    message: RESTORE_MESSAGE(data.version, outcome.version),
  };
}
