import type { Clock } from '../common/clock.js';
import type { Embedder, EmbeddingStore } from './embedding-store.js';
import type { MemoryFilter, ProjectScope } from './memory-store.js';
import type { RankingRow } from './ranking.js';

/** How vector search joins keyword search (docs/memory-search.md, *Semantic search*). */
export interface SemanticConfig {
  /** Nearest neighbours looked at per search (before scope and filters). */
  candidates: number;
  /** A memory without a keyword match joins the results only this similar to the query, or more. */
  minSimilarity: number;
  /** The query's embedding must arrive within this, else the search is keyword-only. */
  queryTimeoutMs: number;
  /** After a failure the provider is left alone this long: searches go keyword-only at once. */
  retryAfterMs: number;
}

export const DEFAULT_SEMANTIC: SemanticConfig = {
  candidates: 100,
  minSimilarity: 0.35,
  queryTimeoutMs: 2000,
  retryAfterMs: 30_000,
};

/** The semantic part's weight when embeddings are configured (MEMORY_WEIGHT_SEMANTIC). */
export const DEFAULT_SEMANTIC_WEIGHT = 0.35;

/** In `explain`: whether vectors took part in this search, or the provider was down and it fell back. */
export type VectorStatus = 'used' | 'unavailable';

export interface SemanticResult {
  status: VectorStatus;
  /** Memories near the query (similarity ≥ minSimilarity), in scope and filter, as ranking rows. */
  near: Array<RankingRow & { similarity: number }>;
  /** Similarity of keyword candidates to the query, by seq (for those that have a vector). */
  similarityOf(seqs: readonly number[]): Promise<Map<number, number>>;
}

export interface SemanticSearch {
  readonly config: SemanticConfig;
  search(userId: string, query: { text: string; scope?: ProjectScope; filter: MemoryFilter }): Promise<SemanticResult>;
}

const CACHED_QUERIES = 500;
const UNAVAILABLE: SemanticResult = { status: 'unavailable', near: [], similarityOf: async () => new Map() };

/**
 * The vector half of hybrid search: embeds the query (cached per process, bounded), asks the store for
 * the user's nearest memories. When the provider fails the search falls back to keywords (status
 * `unavailable`, `onUnavailable` told: the caller throttles the warning) and the provider is not asked
 * again for `retryAfterMs`, so searches never wait on a provider that is down.
 */
export function createSemanticSearch(deps: {
  embedder: Embedder;
  store: EmbeddingStore;
  clock: Clock;
  config: SemanticConfig;
  onUnavailable: (error: unknown) => void;
}): SemanticSearch {
  const { embedder, store, clock, config } = deps;
  const cache = new Map<string, Float32Array>();
  let downUntil = 0;

  async function queryVector(text: string): Promise<Float32Array | undefined> {
    const cached = cache.get(text);
    if (cached) {
      cache.delete(text);
      cache.set(text, cached);
      return cached;
    }
    if (clock.now().getTime() < downUntil) return undefined;
    try {
      const [vector] = await embedder.embed([text], { timeoutMs: config.queryTimeoutMs });
      if (!vector) throw new Error('the embeddings provider returned no vector');
      cache.set(text, vector);
      if (cache.size > CACHED_QUERIES) cache.delete(cache.keys().next().value as string);
      return vector;
    } catch (error) {
      downUntil = clock.now().getTime() + config.retryAfterMs;
      deps.onUnavailable(error);
      return undefined;
    }
  }

  return {
    config,
    async search(userId, query) {
      const vector = await queryVector(query.text);
      if (!vector) return UNAVAILABLE;
      const found = await store.nearest(userId, {
        vector,
        model: embedder.model,
        limit: config.candidates,
        ...(query.scope && { scope: query.scope }),
        filter: query.filter,
      });
      return {
        status: 'used',
        near: found.filter((row) => row.similarity >= config.minSimilarity),
        similarityOf: (seqs) => store.similarities(userId, embedder.model, vector, seqs),
      };
    },
  };
}
