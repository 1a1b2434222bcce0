import type { MemoryFilter, ProjectScope } from './memory-store.js';
import type { RankingRow } from './ranking.js';

/**
 * Optional semantic search (issue 17, docs/memory-search.md): one vector per memory, computed by an
 * OpenAI-compatible embeddings provider and kept beside the memory. Vectors are only ever compared with
 * vectors of the same model and dimensions (`EmbeddingSpace`), so a change of model never mixes them.
 */
export interface EmbeddingSpace {
  model: string;
  dimensions: number;
}

/** A space whose dimensions may not be known yet (the provider has not answered since start). */
export interface SpaceQuery {
  model: string;
  dimensions?: number;
}

/** Turns texts into vectors (src/embeddings/client.ts over HTTP). Throws when the provider fails. */
export interface Embedder {
  readonly model: string;
  /** One vector per text, in order. `timeoutMs` bounds the whole call (retries included). */
  embed(texts: readonly string[], options?: { timeoutMs?: number }): Promise<Float32Array[]>;
}

/** A memory whose vector is missing, stale (text changed, other model or dimensions) or failed. */
export interface PendingEmbedding {
  seq: number;
  userId: string;
  text: string;
  updatedAt: string;
  /** The text hash of the vector stored now (skips the provider when only metadata changed). */
  storedHash: string | null;
  storedSpace: EmbeddingSpace | null;
  /** The stored row records a failure (no vector). */
  storedFailed: boolean;
}

export interface EmbeddingWrite {
  seq: number;
  userId: string;
  textHash: string;
  /** The memory's `updated_at` the vector was computed for. */
  sourceUpdatedAt: string;
  space: EmbeddingSpace;
  /**
   * `null`: the provider failed for this memory (status "failed"; backfill retries it). `'keep'`: the
   * text is unchanged since the stored vector (same hash and space), which now stands for this version.
   */
  vector: Float32Array | null | 'keep';
  error?: string;
}

export interface EmbeddingCounts {
  memories: number;
  embedded: number;
  missing: number;
  stale: number;
  failed: number;
}

export interface NearestQuery {
  vector: Float32Array;
  model: string;
  /** Neighbours looked at (before scope and filters). */
  limit: number;
  scope?: ProjectScope;
  filter: MemoryFilter;
}

export interface EmbeddingStore {
  /**
   * The user's memories nearest to `vector` by cosine similarity, among vectors of the same model and
   * dimensions, that are in the scope and pass the filter: ranking rows (bm25 0) with their similarity.
   * Only the user's own memories, whatever the index.
   */
  nearest(userId: string, query: NearestQuery): Promise<Array<RankingRow & { similarity: number }>>;
  /** Cosine similarity of the user's memories `seqs` to `vector` (those with a vector of that model and size). */
  similarities(
    userId: string,
    model: string,
    vector: Float32Array,
    seqs: readonly number[],
  ): Promise<Map<number, number>>;
  /**
   * Memories (of every user, or of one) needing a vector in `space`, by `seq` after `afterSeq`, at most
   * `limit`; failed ones included only with `retryFailed`.
   */
  pending(query: {
    space: SpaceQuery;
    afterSeq: number;
    limit: number;
    retryFailed: boolean;
    userId?: string;
  }): Promise<PendingEmbedding[]>;
  /** The same, for named memories of one user (the write path's queue). */
  pendingByIds(userId: string, ids: readonly string[], space: SpaceQuery): Promise<PendingEmbedding[]>;
  /** Upserts vectors (or failures); a memory deleted meanwhile is skipped. */
  save(rows: readonly EmbeddingWrite[]): Promise<void>;
  counts(space: SpaceQuery, userId?: string): Promise<EmbeddingCounts>;
}
