import type { z } from 'zod';
import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import { NotFoundError, ValidationError } from '../common/errors.js';
import { type IdGenerator, isId } from '../common/ids.js';
import { mergePatch, sameJson } from '../common/json.js';
import { pageOffset } from '../common/pagination.js';
import { ancestorsOf, assertProjectName } from '../common/project.js';
import { searchWords } from '../common/search-words.js';
import { issuesToDetails, parseInput } from '../common/validation.js';
import {
  type CreateMemoryInput,
  createMemoryBody,
  type ListMemoriesQuery,
  type Memory,
  metadataSchema,
  type Priority,
  type RankedMemory,
  type UpdateMemoryInput,
  updateMemoryBody,
} from './memory-schemas.js';
import type { MemoryFilter, MemoryRecord, MemoryStore, ProjectScope } from './memory-store.js';
import { compareRanked, type RankingConfig, type RankingRow, scoreOf } from './ranking.js';

/** Whether writing `next` would change nothing (what an import reports as unchanged). */
export const memoryUnchanged = (
  current: MemoryRecord,
  next: Pick<MemoryRecord, 'text' | 'projectName' | 'metadata'>,
): boolean =>
  current.text === next.text && current.projectName === next.projectName && sameJson(current.metadata, next.metadata);

export const MEMORY_MESSAGES = {
  created: 'Memory created successfully',
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

/**
 * Search words as the full-text index sees them: runs of letters and digits, lowercased, distinct, and
 * bounded (src/domain/common/search-words.ts: a 400 naming `search` beyond them).
 */
export const searchTerms = (search: string): string[] => searchWords(search, 'letters');

export function toMemory(record: MemoryRecord): Memory {
  return {
    memory_id: record.id,
    text: record.text,
    project_name: record.projectName,
    metadata: record.metadata,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    last_accessed_at: record.lastAccessedAt,
  };
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

export function createMemoryService({ memories, access, clock, ids, ranking }: MemoryServiceDeps) {
  async function find(actor: Actor, id: string): Promise<MemoryRecord> {
    const record = isId('mem', id) ? await memories.findById(actor.userId, id) : undefined;
    if (!record) throw new NotFoundError('Memory');
    return record;
  }

  /** Marks memories as read now: the answer shows it at once, the store gets it in the next batch. */
  function touch(records: MemoryRecord[], now: Date): void {
    const at = now.toISOString();
    for (const record of records) {
      record.lastAccessedAt = at;
      access.record(record.userId, record.id, now);
    }
  }

  async function search(actor: Actor, input: SearchInput): Promise<{ memories: RankedMemory[]; total: number }> {
    const now = clock.now();
    const terms = searchTerms(input.search);
    // Ranking looks at a bounded candidate set (keyword matches, or per-group context rows), as deep as the
    // page needs; a page that starts beyond the bound would make the set unbounded, so it is refused.
    if (input.offset > 0 && input.offset >= ranking.candidateLimit) {
      const lastPage = Math.floor((ranking.candidateLimit - 1) / input.limit) + 1;
      throw new ValidationError({
        page: `Ranked results go ${ranking.candidateLimit} deep: page must be at most ${lastPage} at per_page ${input.limit}`,
      });
    }
    // Checked here too, whatever the transport validated: the ancestors list and the index query grow
    // with the name's depth.
    if (input.project_name !== undefined) assertProjectName(input.project_name);
    const scope: ProjectScope | undefined =
      input.project_name === undefined
        ? undefined
        : { project: input.project_name, ancestors: ancestorsOf(input.project_name) };
    const filter: MemoryFilter = {
      ...(input.category !== undefined && { category: input.category }),
      ...(input.priority !== undefined && { priority: input.priority }),
      tags: input.tags,
    };
    const wanted = input.offset + input.limit;

    let rows: RankingRow[];
    let total: number;
    if (terms.length > 0) {
      const cap = Math.max(ranking.candidateLimit, wanted);
      const base = { ...filter, words: terms, ...(scope && { scope }) };
      rows = await memories.keywordCandidates(actor.userId, { ...base, limit: cap + 1 });
      if (rows.length <= cap) {
        total = rows.length;
      } else {
        // More matches than we rank: take the newest ones plus the newest high-priority and in-project
        // ones (docs/memory-search.md explains the bound).
        rows = rows.slice(0, cap);
        const extraLimit = Math.ceil(cap / 2);
        const extra = await Promise.all([
          memories.keywordCandidates(actor.userId, { ...base, only: 'high', limit: extraLimit }),
          scope ? memories.keywordCandidates(actor.userId, { ...base, only: 'project', limit: extraLimit }) : [],
        ]);
        const seen = new Set(rows.map((row) => row.seq));
        for (const row of extra.flat()) if (!seen.has(row.seq) && seen.add(row.seq)) rows.push(row);
        total = input.withTotal ? await memories.countKeywordMatches(actor.userId, base) : rows.length;
      }
    } else {
      rows = await memories.contextCandidates(actor.userId, { ...filter, ...(scope && { scope }), limit: wanted });
      total = input.withTotal
        ? await memories.countContext(actor.userId, { ...filter, ...(scope && { scope }) })
        : rows.length;
    }

    const bestBm25 = rows.reduce((best, row) => Math.max(best, row.bm25), 0);
    const context = { project: input.project_name, nowMs: now.getTime(), bestBm25 };
    const ranked = rows
      .map((row) => ({ row, ...scoreOf(row, context, ranking) }))
      .sort(compareRanked)
      .slice(input.offset, wanted);
    const records = new Map(
      (
        await memories.findBySeq(
          actor.userId,
          ranked.map((r) => r.row.seq),
        )
      ).map((r) => [r.seq, r]),
    );
    // A memory deleted between ranking and reading is simply left out.
    const hits = ranked.flatMap((entry) => {
      const record = records.get(entry.row.seq);
      return record ? [{ ...entry, record }] : [];
    });
    touch(
      hits.map((hit) => hit.record),
      now,
    );
    const page: RankedMemory[] = hits.map(({ record, score, parts }) => ({
      ...toMemory(record),
      score,
      ...(input.explain && { score_parts: parts }),
    }));
    return { memories: page, total: Math.max(total, input.offset + page.length) };
  }

  return {
    async create(actor: Actor, input: CreateMemoryInput): Promise<Memory & { message: string }> {
      const data = parseInput(createMemoryBody, input);
      const record = newMemoryRecord(actor, data, clock.now().toISOString(), ids);
      await memories.insert(record);
      return { ...toMemory(record), message: MEMORY_MESSAGES.created };
    },

    /** Reading a memory counts as an access. */
    async get(actor: Actor, id: string): Promise<Memory> {
      const record = await find(actor, id);
      touch([record], clock.now());
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

    /**
     * The REST list: without `search`, a filtered list (newest update first, `project_name` = that project
     * and its descendants); with `search` (even empty), the ranked search.
     */
    async list(actor: Actor, query: ListMemoriesQuery) {
      const filter = {
        ...(query.category !== undefined && { category: query.category }),
        ...(query.priority !== undefined && { priority: query.priority as Priority }),
        tags: [...new Set(query.tag.map((t) => t.trim()).filter(Boolean))],
      };
      const offset = pageOffset(query);
      if (query.search === undefined) {
        const page = await memories.list(actor.userId, {
          ...filter,
          ...(query.project_name !== undefined && { projectTree: query.project_name }),
          offset,
          limit: query.per_page,
        });
        return { memories: page.items.map(toMemory), total: page.total, page: query.page, per_page: query.per_page };
      }
      const result = await search(actor, {
        ...filter,
        search: query.search,
        ...(query.project_name !== undefined && { project_name: query.project_name }),
        offset,
        limit: query.per_page,
        explain: query.explain,
        withTotal: true,
      });
      return { ...result, page: query.page, per_page: query.per_page };
    },

    search,
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
