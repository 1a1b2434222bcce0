import type { Clock } from '../domain/common/clock.js';
import { createSemanticSearch, type SemanticConfig } from '../domain/memories/semantic.js';
import { type Logger, throttled } from '../logger.js';
import type { Database } from '../storage/database.js';
import { createEmbeddingStore } from '../storage/embedding-store.js';
import { createEmbeddingsClient, type EmbeddingsClientConfig } from './client.js';
import { createEmbeddingIndexer } from './indexer.js';

/** Semantic search settings (EMBEDDINGS_*; README configuration table, docs/memory-search.md). */
export interface EmbeddingsConfig extends EmbeddingsClientConfig {
  search: SemanticConfig;
  /** PostgreSQL without pgvector: vectors compared per search, the user's newest memories first. */
  scanLimit: number;
  /** Memories waiting for a vector in this process at most (past it, backfill catches up). */
  maxQueue: number;
}

/** At most one warning a minute per kind of trouble: a provider that is down must not flood the log. */
const WARN_EVERY_MS = 60_000;

/**
 * Semantic search, wired when EMBEDDINGS_URL is set: the provider client, the vector store, the
 * background indexer and the search half the memory service asks.
 */
export async function createEmbeddings(config: EmbeddingsConfig, database: Database, clock: Clock, logger: Logger) {
  const vectors = await database.vectorSearch();
  if (!vectors.exhaustive) {
    logger.warn(
      { vectorSearch: vectors.method, scanLimit: config.scanLimit },
      `embeddings: ${database.displayName} without pgvector: similarity compares each user's EMBEDDINGS_SCAN_LIMIT newest vectors (docs/memory-search.md)`,
    );
  }
  const embedder = createEmbeddingsClient(config);
  const store = createEmbeddingStore(database.db, database.dialect, { vectors, scanLimit: config.scanLimit });
  const indexer = createEmbeddingIndexer({
    embedder,
    store,
    batchSize: config.batchSize,
    maxQueue: config.maxQueue,
    onError: throttled(WARN_EVERY_MS, (error, suppressed) =>
      logger.warn(
        { err: error, suppressed },
        'embeddings: computing vectors failed; they are recorded as failed and `cairn embeddings backfill` retries them',
      ),
    ),
  });
  const semantic = createSemanticSearch({
    embedder,
    store,
    clock,
    config: config.search,
    onUnavailable: throttled(WARN_EVERY_MS, (error, suppressed) =>
      logger.warn(
        { err: error, suppressed },
        'embeddings provider unavailable: memory search falls back to keyword ranking',
      ),
    ),
  });

  let background: Promise<void> | undefined;
  const pendingRuns = new Set<Promise<void>>();
  return {
    semantic,
    indexer,
    /** How similarity is searched here (method, exhaustive or bounded by EMBEDDINGS_SCAN_LIMIT). */
    vectors,
    /**
     * Server start: learns the model's dimensions, then embeds in the background whatever needs it
     * (memories written while the provider was down, or all of them after a change of model). Never
     * throws: with the provider down the server runs on keywords and backfill catches up later.
     */
    startBackground(): void {
      background = (async () => {
        try {
          const space = await indexer.detectSpace();
          const counts = await store.counts(space);
          logger.info(
            { model: space.model, dimensions: space.dimensions, vectorSearch: vectors.method, ...counts },
            'embeddings: provider ready',
          );
          if (counts.stale > 0) {
            logger.warn(
              { stale: counts.stale },
              'embeddings: vectors of another model, size or text found; re-embedding them in the background',
            );
          }
          if (counts.missing + counts.stale > 0) await indexer.backfill({ retryFailed: false });
        } catch (error) {
          logger.warn(
            { err: error },
            'embeddings provider unavailable at start: searches use keywords until it answers; run `cairn embeddings backfill` later',
          );
        }
      })();
    },
    /** After a bulk write (an import): embeds what the user's memories need, in the background. */
    embedUserLater(userId: string): void {
      const run = indexer.backfill({ userId, retryFailed: false }).then(
        () => undefined,
        (error: unknown) => indexer.reportError(error),
      );
      pendingRuns.add(run);
      void run.finally(() => pendingRuns.delete(run));
    },
    async close() {
      await indexer.close();
      await Promise.all(pendingRuns);
      await background;
    },
  };
}

export type Embeddings = Awaited<ReturnType<typeof createEmbeddings>>;
