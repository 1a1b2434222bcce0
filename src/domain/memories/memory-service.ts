import type { z } from 'zod';
import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import { NotFoundError, ValidationError } from '../common/errors.js';
import { type IdGenerator, isId } from '../common/ids.js';
import { mergePatch, sameJson } from '../common/json.js';
import { issuesToDetails, parseInput } from '../common/validation.js';
import { findNearDuplicates } from './dedupe.js';
import { listMemories, rankMemories, type SearchPageInput, searchMemoryPage } from './memory-lists.js';
import { toMemory } from './memory-presenter.js';
import {
  type CreateMemoryInput,
  createMemoryBody,
  type ListMemoriesQuery,
  type Memory,
  type MemoryCreated,
  metadataSchema,
  type UpdateMemoryInput,
  updateMemoryBody,
} from './memory-schemas.js';
import { searchMemories, touch } from './memory-search.js';
import type { MemoryFilter, MemoryRecord, MemoryStore } from './memory-store.js';
import type { RankingConfig } from './ranking.js';

export type { SearchPageInput } from './memory-lists.js';
export { searchTerms } from './memory-search.js';

/** Whether writing `next` would change nothing (what an import reports as unchanged). */
export const memoryUnchanged = (
  current: MemoryRecord,
  next: Pick<MemoryRecord, 'text' | 'projectName' | 'metadata'>,
): boolean =>
  current.text === next.text && current.projectName === next.projectName && sameJson(current.metadata, next.metadata);

export const MEMORY_MESSAGES = {
  created: 'Memory created successfully',
  deduped: 'An identical memory already exists; it was not created again',
  updated: 'Memory updated successfully',
  deleted: 'Memory deleted successfully',
} as const;

/** Records that memories were read; implementations batch the writes. */
export interface AccessSink {
  record(userId: string, id: string, at: Date): void;
}

export interface SearchInput extends MemoryFilter {
  search: string;
  project_name?: string;
  offset: number;
  limit: number;
  explain?: boolean;
  /** REST lists need the number of all matches; MCP does not, and skips the count. */
  withTotal?: boolean;
}

/** A new memory of `actor` from validated create input (one memory or a batch item). */
export function newMemoryRecord(
  actor: Actor,
  data: z.output<typeof createMemoryBody>,
  now: string,
  ids: IdGenerator,
): MemoryRecord {
  return {
    id: ids('mem'),
    userId: actor.userId,
    text: data.text,
    projectName: data.project_name ?? null,
    metadata: data.metadata ?? {},
    createdAt: now,
    updatedAt: now,
    lastAccessedAt: null,
  };
}

export interface MemoryServiceDeps {
  memories: MemoryStore;
  access: AccessSink;
  clock: Clock;
  ids: IdGenerator;
  ranking: RankingConfig;
}

export function createMemoryService(deps: MemoryServiceDeps) {
  const { memories, access, clock, ids } = deps;
  async function find(actor: Actor, id: string): Promise<MemoryRecord> {
    const record = isId('mem', id) ? await memories.findById(actor.userId, id) : undefined;
    if (!record) throw new NotFoundError('Memory');
    return record;
  }

  return {
    /**
     * Creates a memory. With `dedupe` (the default) an exact duplicate (same project, same normalised
     * text: dedupe.ts) is not inserted: the stored memory is answered as it is, with `deduped: true`
     * (its metadata unchanged, whatever this one carried). A near duplicate is created and named in
     * `possible_duplicates`, for the caller to supersede or delete explicitly.
     */
    async create(actor: Actor, input: CreateMemoryInput, options: { dedupe?: boolean } = {}): Promise<MemoryCreated> {
      const data = parseInput(createMemoryBody, input);
      const record = newMemoryRecord(actor, data, clock.now().toISOString(), ids);
      if (options.dedupe === false) {
        await memories.insert(record);
        return { ...toMemory(record), message: MEMORY_MESSAGES.created };
      }
      const near = await findNearDuplicates(memories, actor.userId, record);
      const existing = await memories.insertUnlessDuplicate(record);
      if (existing) return { ...toMemory(existing), message: MEMORY_MESSAGES.deduped, deduped: true };
      return {
        ...toMemory(record),
        message: MEMORY_MESSAGES.created,
        ...(near.length > 0 && { possible_duplicates: near }),
      };
    },

    /** Reading a memory counts as an access. */
    async get(actor: Actor, id: string): Promise<Memory> {
      const record = await find(actor, id);
      touch(access, [record], clock.now());
      return toMemory(record);
    },

    async update(actor: Actor, id: string, input: UpdateMemoryInput): Promise<Memory & { message: string }> {
      const data = parseInput(updateMemoryBody, input);
      const record = await find(actor, id);
      let metadata: Record<string, unknown> | undefined;
      if (data.metadata !== undefined) {
        const merged = metadataSchema.safeParse(mergePatch(record.metadata, data.metadata));
        if (!merged.success) {
          const details = issuesToDetails(merged.error.issues);
          throw new ValidationError(
            Object.fromEntries(
              Object.entries(details).map(([path, message]) => [
                path === 'body' ? 'metadata' : `metadata.${path}`,
                message,
              ]),
            ),
          );
        }
        metadata = merged.data;
      }
      const updatedAt = clock.now().toISOString();
      const patch = {
        ...(data.text !== undefined && { text: data.text }),
        ...(data.project_name !== undefined && { projectName: data.project_name }),
        ...(metadata !== undefined && { metadata }),
      };
      if (!(await memories.update(actor.userId, record.id, patch, updatedAt))) throw new NotFoundError('Memory');
      return { ...toMemory({ ...record, ...patch, updatedAt }), message: MEMORY_MESSAGES.updated };
    },

    async delete(actor: Actor, id: string): Promise<{ message: string }> {
      const record = await find(actor, id);
      if (!(await memories.delete(actor.userId, record.id))) throw new NotFoundError('Memory');
      return { message: MEMORY_MESSAGES.deleted };
    },

    list: (actor: Actor, query: ListMemoriesQuery) => listMemories(deps, actor, query),
    searchPage: (actor: Actor, input: SearchPageInput) => searchMemoryPage(deps, actor, input),
    /** The ranked search without counting accesses (the context block: reading it is not using a memory). */
    rank: (actor: Actor, input: SearchInput) => rankMemories(deps, actor, input),
    search: (actor: Actor, input: SearchInput) => searchMemories(deps, actor, input),
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
