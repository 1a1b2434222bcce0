import { sha256Hex } from '../domain/common/digest.js';
import type {
  Embedder,
  EmbeddingSpace,
  EmbeddingStore,
  EmbeddingWrite,
  PendingEmbedding,
} from '../domain/memories/embedding-store.js';
import type { EmbeddingQueue } from '../domain/memories/memory-service.js';

export interface IndexerOptions {
  embedder: Embedder;
  store: EmbeddingStore;
  /** Memories per provider call and per store write. */
  batchSize: number;
  /** Memories waiting at most; past it new ones are left to backfill (and counted as missing meanwhile). */
  maxQueue: number;
  /** A batch failed or the queue overflowed (the caller logs, throttled). */
  onError: (error: unknown) => void;
}

export interface BackfillProgress {
  done: number;
  total: number;
  embedded: number;
  failed: number;
}

/** A text the provider is asked once to learn the vectors' size (the model's dimensions). */
const PROBE_TEXT = 'dimension probe';

const textHash = (text: string) => sha256Hex(text);
const sameSpace = (a: EmbeddingSpace | null, b: EmbeddingSpace) =>
  a !== null && a.model === b.model && a.dimensions === b.dimensions;

/**
 * Embeds and stores `rows` (the indexer's batch); returns how many got a vector and how many failed. A text
 * unchanged since its stored vector (same hash and space) keeps it without asking the provider.
 */
async function embedAndStore(
  { embedder, store, onError }: Pick<IndexerOptions, 'embedder' | 'store' | 'onError'>,
  rows: readonly PendingEmbedding[],
  getSpace: () => EmbeddingSpace | undefined,
  setSpace: (space: EmbeddingSpace) => void,
): Promise<{ embedded: number; failed: number }> {
  let space = getSpace();
  const writes: EmbeddingWrite[] = [];
  const toEmbed: Array<{ row: PendingEmbedding; hash: string }> = [];
  for (const row of rows) {
    const hash = textHash(row.text);
    if (space && !row.storedFailed && row.storedHash === hash && sameSpace(row.storedSpace, space)) {
      writes.push({
        seq: row.seq,
        userId: row.userId,
        textHash: hash,
        sourceUpdatedAt: row.updatedAt,
        space,
        vector: 'keep',
      });
    } else {
      toEmbed.push({ row, hash });
    }
  }
  let failed = 0;
  if (toEmbed.length > 0) {
    try {
      const vectors = await embedder.embed(toEmbed.map((item) => item.row.text));
      const dimensions = vectors[0]?.length ?? 0;
      if (!space || space.dimensions !== dimensions) {
        space = { model: embedder.model, dimensions };
        setSpace(space);
      }
      const current = space;
      toEmbed.forEach(({ row, hash }, i) => {
        writes.push({
          seq: row.seq,
          userId: row.userId,
          textHash: hash,
          sourceUpdatedAt: row.updatedAt,
          space: current,
          vector: vectors[i] ?? null,
        });
      });
    } catch (error) {
      failed = toEmbed.length;
      const message = (error as Error).message.slice(0, 500);
      const failedSpace = space ?? { model: embedder.model, dimensions: 0 };
      for (const { row, hash } of toEmbed) {
        writes.push({
          seq: row.seq,
          userId: row.userId,
          textHash: hash,
          sourceUpdatedAt: row.updatedAt,
          space: failedSpace,
          vector: null,
          error: message,
        });
      }
      onError(error);
    }
  }
  await store.save(writes);
  return { embedded: writes.length - failed, failed };
}

/**
 * Keeps memories' vectors in step with their text, in the background: writes name the memories they
 * changed (`changed`, never awaited by the write); a drain loop reads what still needs a vector, asks the
 * provider in batches and stores the answers. A failure is recorded per memory (status "failed") and
 * retried by backfill; nothing a write did depends on it. `backfill` walks every memory needing a vector
 * (missing, stale, other model or size, failed) by `seq`, so it resumes where an interrupted run stopped.
 */
export function createEmbeddingIndexer(options: IndexerOptions) {
  const { embedder, store, batchSize } = options;
  let space: EmbeddingSpace | undefined;
  const queue = new Map<string, Set<string>>();
  let queued = 0;
  let draining: Promise<void> | undefined;
  let closed = false;

  const spaceQuery = () => space ?? { model: embedder.model };

  async function detectSpace(): Promise<EmbeddingSpace> {
    if (space) return space;
    const [vector] = await embedder.embed([PROBE_TEXT]);
    if (!vector) throw new Error('the embeddings provider returned no vector');
    space = { model: embedder.model, dimensions: vector.length };
    return space;
  }

  const embedRows = (rows: readonly PendingEmbedding[]) =>
    embedAndStore(
      options,
      rows,
      () => space,
      (next) => {
        space = next;
      },
    );

  function takeBatch(): { userId: string; ids: string[] } | undefined {
    for (const [userId, ids] of queue) {
      const taken = [...ids].slice(0, batchSize);
      for (const id of taken) ids.delete(id);
      if (ids.size === 0) queue.delete(userId);
      queued -= taken.length;
      return { userId, ids: taken };
    }
    return undefined;
  }

  async function drain(): Promise<void> {
    for (let batch = takeBatch(); batch; batch = takeBatch()) {
      try {
        const rows = await store.pendingByIds(batch.userId, batch.ids, spaceQuery());
        await embedRows(rows);
      } catch (error) {
        options.onError(error);
      }
    }
  }

  function kick(): void {
    if (draining || closed) return;
    draining = new Promise<void>((resolve) => setImmediate(resolve)).then(drain).finally(() => {
      draining = undefined;
      if (queued > 0) kick();
    });
  }

  const queueApi: EmbeddingQueue = {
    changed(userId, ids) {
      if (closed) return;
      let set = queue.get(userId);
      for (const id of ids) {
        if (queued >= options.maxQueue) {
          options.onError(new Error(`embedding queue full (${options.maxQueue}): run \`cairn embeddings backfill\``));
          break;
        }
        if (!set) {
          set = new Set();
          queue.set(userId, set);
        }
        if (!set.has(id)) {
          set.add(id);
          queued++;
        }
      }
      kick();
    },
  };

  return {
    ...queueApi,
    /** Reports a background failure the way the indexer's own are (throttled warning). */
    reportError: (error: unknown) => options.onError(error),
    /** The vectors' space once the provider has answered (model and detected dimensions). */
    space: () => space,
    detectSpace,
    /** Resolves when every memory named so far has been handled (tests, shutdown). */
    async idle(): Promise<void> {
      while (draining !== undefined) await draining;
    },
    /**
     * Embeds every memory that needs it (of one user, or all), `batchSize` at a time, telling `onProgress`
     * after each batch. Stops at the first batch the provider fails (what was done is kept: run it again
     * to resume). `retryFailed`: also memories whose last attempt failed.
     */
    async backfill(
      run: { userId?: string; retryFailed?: boolean; onProgress?: (progress: BackfillProgress) => void } = {},
    ): Promise<BackfillProgress> {
      const current = await detectSpace();
      const before = await store.counts(current, run.userId);
      const total = before.missing + before.stale + (run.retryFailed === false ? 0 : before.failed);
      const progress: BackfillProgress = { done: 0, total, embedded: 0, failed: 0 };
      let afterSeq = 0;
      while (!closed) {
        const rows = await store.pending({
          space: current,
          afterSeq,
          limit: batchSize,
          retryFailed: run.retryFailed !== false,
          ...(run.userId !== undefined && { userId: run.userId }),
        });
        if (rows.length === 0) break;
        const result = await embedRows(rows);
        progress.done += rows.length;
        progress.embedded += result.embedded;
        progress.failed += result.failed;
        progress.total = Math.max(progress.total, progress.done);
        run.onProgress?.({ ...progress });
        if (result.failed > 0) break;
        afterSeq = rows[rows.length - 1]?.seq ?? afterSeq;
      }
      return progress;
    },
    status: async (userId?: string) => {
      const detected = await detectSpace().catch(() => undefined);
      return { space: detected, counts: await store.counts(detected ?? { model: embedder.model }, userId) };
    },
    /** Stops taking work and waits for the batch in progress. */
    async close(): Promise<void> {
      closed = true;
      queue.clear();
      queued = 0;
      while (draining !== undefined) await draining;
    },
  };
}

export type EmbeddingIndexer = ReturnType<typeof createEmbeddingIndexer>;
