import type { Actor } from '../common/actor.js';
import { changeBy } from '../common/audit.js';
import type { Clock } from '../common/clock.js';
import type { IdGenerator } from '../common/ids.js';
import { parseInput } from '../common/validation.js';
import { toMemory } from './memory-presenter.js';
import { type CreateMemoryBatchInput, createMemoryBatchBody, type MemoryBatchWritten } from './memory-schemas.js';
import { type EmbeddingQueue, newMemoryRecord } from './memory-service.js';
import type { MemoryStore } from './memory-store.js';

export const MEMORY_BATCH_MESSAGE = 'Memories created successfully';

export interface MemoryBatchDeps {
  memories: MemoryStore;
  clock: Clock;
  ids: IdGenerator;
  embeddings?: EmbeddingQueue;
}

/**
 * Creates up to MEMORY_BATCH_MAX memories in one transaction, all or none: any invalid item fails the
 * whole batch with every bad field of every item named (`memories.3.text`), before anything is written.
 */
export async function createMemories(
  deps: MemoryBatchDeps,
  actor: Actor,
  input: CreateMemoryBatchInput,
): Promise<MemoryBatchWritten> {
  const data = parseInput(createMemoryBatchBody, input);
  const at = deps.clock.now();
  const now = at.toISOString();
  const records = data.memories.map((item) => newMemoryRecord(actor, item, now, deps.ids));
  await deps.memories.insertMany(records, changeBy(actor, at));
  deps.embeddings?.changed(
    actor.userId,
    records.map((record) => record.id),
  );
  return { memories: records.map(toMemory), message: MEMORY_BATCH_MESSAGE };
}

export function createMemoryBatchService(deps: MemoryBatchDeps) {
  return {
    create: (actor: Actor, input: CreateMemoryBatchInput) => createMemories(deps, actor, input),
  };
}
export type MemoryBatchService = ReturnType<typeof createMemoryBatchService>;
