import type { Config } from './config.js';
import { createAccessRecorder } from './counters/access-recorder.js';
import { createMemoryCounter } from './counters/memory-counter.js';
import { createUsageRecorder } from './counters/usage-recorder.js';
import { createAccessGate } from './domain/accounts/access-gate.js';
import { createKeyService } from './domain/accounts/key-service.js';
import { createScryptHasher } from './domain/accounts/password.js';
import { createSessionService } from './domain/accounts/session-service.js';
import { createUsageService } from './domain/accounts/usage-service.js';
import { createUserService } from './domain/accounts/user-service.js';
import { createArtifactService } from './domain/artifacts/artifact-service.js';
import { createAuditService } from './domain/audit/audit-service.js';
import { createBundleService } from './domain/bundles/bundle-service.js';
import { type Clock, systemClock } from './domain/common/clock.js';
import { createIdGenerator, type IdGenerator } from './domain/common/ids.js';
import { createContextService } from './domain/context/context-service.js';
import type { WindowCounter } from './domain/limits/rate-limit.js';
import { createMemoryBatchService } from './domain/memories/memory-batch-service.js';
import { createMemoryService } from './domain/memories/memory-service.js';
import { createPromptService } from './domain/prompts/prompt-service.js';
import { createWebhookService, type ResolveHost } from './domain/webhooks/webhook-service.js';
import { createEmbeddings } from './embeddings/index.js';
import { createLogger, type Logger, throttled } from './logger.js';
import { type Database, migrateToLatest, openDatabase } from './storage/database.js';
import { refreshPlannerStatistics } from './storage/postgres-statistics.js';
import { createStores } from './storage/stores.js';
import { createDispatcher } from './webhooks/dispatcher.js';
import { createHttpSender, resolveHost } from './webhooks/http-sender.js';

export interface ContainerOptions {
  clock?: Clock;
  ids?: IdGenerator;
  counters?: WindowCounter;
  logger?: Logger;
  /** Log sink for background failures (batched writes); defaults to the logger. */
  onBackgroundError?: (error: unknown) => void;
  /** Name resolution for webhook URLs (registration and delivery); tests resolve names their own way. */
  resolveHost?: ResolveHost;
  /** The jitter source of webhook retries, in [0, 1). */
  random?: () => number;
}

/** In-process counters for one instance; Redis when REDIS_URL is set (several instances). */
async function createCounters(config: Config, database: Database, logger: Logger): Promise<WindowCounter> {
  if (!config.redisUrl) {
    if (database.multiInstance) {
      logger.warn(
        `${database.displayName} without REDIS_URL: rate limits are counted per instance; set REDIS_URL when running several`,
      );
    }
    return createMemoryCounter();
  }
  // Loaded only when configured: ioredis is a tenth of a second of start-up a single instance never needs.
  const { createRedisCounter } = await import('./counters/redis-counter.js');
  const counter = createRedisCounter({
    url: config.redisUrl,
    prefix: config.redisKeyPrefix,
    onUnavailable: throttled(60_000, (error, suppressed) =>
      logger.warn(
        { err: error, suppressed },
        'Redis is unreachable: rate limits are not enforced (failing open) until it is back',
      ),
    ),
  });
  await counter.ready();
  return counter;
}

/** How often PostgreSQL tables past autovacuum's threshold are analysed (postgres-statistics.ts). */
const STATISTICS_INTERVAL_MS = 5 * 60_000;

/**
 * Composition root: database → stores → services. Transports receive the finished container and
 * never construct anything themselves.
 */
export async function createContainer(config: Config, options: ContainerOptions = {}) {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config);
  const ids = options.ids ?? createIdGenerator(clock);
  const database: Database = await openDatabase(config.databaseUrl, {
    preparedStatements: config.postgresPreparedStatements,
  });
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }

  // PostgreSQL: planner statistics where autovacuum does not keep them (postgres-statistics.ts), at start
  // (after migrations filled tables) and then every STATISTICS_INTERVAL_MS, off the request path.
  let analysing: Promise<unknown> = Promise.resolve();
  const analyse = () => {
    analysing = refreshPlannerStatistics(database.db)
      .then((tables) => {
        if (tables.length > 0) logger.info({ tables }, 'planner statistics refreshed');
      })
      .catch((error) => logger.error({ err: error }, 'planner statistics refresh failed'));
  };
  const statisticsTimer =
    database.dialect.migrations === 'postgres' ? setInterval(analyse, STATISTICS_INTERVAL_MS).unref() : undefined;
  if (statisticsTimer) analyse();

  const stores = createStores(database);
  const counters = options.counters ?? (await createCounters(config, database, logger));
  const onError =
    options.onBackgroundError ?? ((error: unknown) => logger.error({ err: error }, 'batched write failed; will retry'));
  const usage = createUsageRecorder({
    persist: (increments) => stores.keys.addUsage(increments),
    intervalMs: config.usageFlushIntervalMs,
    onError,
  });
  const access = createAccessRecorder({
    persist: (accesses) => stores.memories.recordAccess(accesses),
    intervalMs: config.usageFlushIntervalMs,
    onError,
  });

  const resolve = options.resolveHost ?? resolveHost;
  const webhookSettings = config.webhooks;
  const dispatcher = createDispatcher({
    store: stores.webhooks,
    send: createHttpSender({
      timeoutMs: webhookSettings.timeoutMs,
      allowPrivateNetworks: webhookSettings.allowPrivateNetworks,
      resolve,
    }),
    clock,
    schedule: {
      baseMs: webhookSettings.retryBaseMs,
      maxMs: webhookSettings.retryMaxMs,
      maxAttempts: webhookSettings.maxAttempts,
    },
    disableAfter: webhookSettings.disableAfterFailures,
    pollIntervalMs: webhookSettings.pollIntervalMs,
    batchSize: webhookSettings.batchSize,
    leaseMs: webhookSettings.timeoutMs + 2000,
    retentionMs: webhookSettings.logRetentionDays * 86_400_000,
    ...(options.random && { random: options.random }),
    onError: throttled(60_000, (error, suppressed) =>
      logger.error({ err: error, suppressed }, 'webhook delivery worker failed; will retry'),
    ),
  });

  const passwords = createScryptHasher(config.passwordHashing);
  const promptService = createPromptService({
    prompts: stores.prompts,
    clock,
    ids,
    renderMaxChars: config.renderMaxChars,
    changeStamp: database.changeStamp,
    defaultEnvironment: config.defaultPromptEnvironment,
  });
  const artifactService = createArtifactService({ artifacts: stores.artifacts, clock, ids, limits: config.artifacts });
  const embeddings = config.embeddings
    ? await createEmbeddings(config.embeddings, database, clock, logger).catch(async (error) => {
        await database.close();
        throw error;
      })
    : undefined;
  const memoryService = createMemoryService({
    memories: stores.memories,
    access,
    clock,
    ids,
    ranking: config.ranking,
    keepVersions: config.memoryVersionRetention,
    ...(embeddings && { semantic: embeddings.semantic, embeddings: embeddings.indexer }),
  });
  const services = {
    users: createUserService({ users: stores.users, clock, ids, passwords }),
    sessions: createSessionService({
      users: stores.users,
      sessions: stores.sessions,
      counters,
      clock,
      ids,
      passwords,
      signupMode: config.signupMode,
      ttlDays: config.sessionTtlDays,
      signupAddressLimit: config.signupAddressLimit,
      dashboardRateLimit: config.dashboardRateLimit,
    }),
    keys: createKeyService({
      keys: stores.keys,
      users: stores.users,
      clock,
      ids,
      pendingUsage: (id) => usage.pending(id),
    }),
    usage: createUsageService({
      keys: stores.keys,
      users: stores.users,
      counters,
      clock,
      tierLimits: config.tierLimits,
      pending: (userId) => usage.pendingFor(userId),
    }),
    prompts: promptService,
    artifacts: artifactService,
    bundles: createBundleService({
      bundles: stores.bundles,
      prompts: stores.prompts,
      memories: stores.memories,
      artifacts: stores.artifacts,
      promptService,
      artifactService,
      clock,
      ids,
      maxArtifactBytes: config.artifacts.maxContentBytes,
      memoryVersionRetention: config.memoryVersionRetention,
      ...(embeddings && { afterImport: (userId: string) => embeddings.embedUserLater(userId) }),
    }),
    memories: memoryService,
    context: createContextService({
      rankMemories: memoryService.rank,
      mcpPrompts: promptService.listForMcp,
      artifacts: (actor, project, limit) =>
        artifactService.list(actor, { ...(project !== undefined && { project }), label: [], page: 1, per_page: limit }),
    }),
    webhooks: createWebhookService({
      webhooks: stores.webhooks,
      clock,
      ids,
      resolveHost: resolve,
      allowPrivateNetworks: webhookSettings.allowPrivateNetworks,
      maxEndpointsPerUser: webhookSettings.maxEndpointsPerUser,
      wake: () => dispatcher.wake(),
    }),
    memoryBatches: createMemoryBatchService({
      memories: stores.memories,
      clock,
      ids,
      ...(embeddings && { embeddings: embeddings.indexer }),
    }),
    audit: createAuditService({ audit: stores.audit, clock, retentionDays: config.audit.retentionDays }),
    gate: createAccessGate({
      keys: stores.keys,
      counters,
      usage,
      clock,
      tierLimits: config.tierLimits,
      authFailureLimit: config.authFailureLimit,
      changeStamp: database.changeStamp,
    }),
  };

  // Audit retention: a bounded prune now and then, off the request path (every instance may run it: the
  // deletes are idempotent). The timer does not keep the process alive.
  let pruning: Promise<unknown> = Promise.resolve();
  const pruneTimer =
    config.audit.retentionDays > 0
      ? setInterval(() => {
          pruning = services.audit.prune().catch((error) => logger.error({ err: error }, 'audit retention failed'));
        }, config.audit.pruneIntervalMs).unref()
      : undefined;
  if (webhookSettings.worker) dispatcher.start();

  return {
    config,
    logger,
    clock,
    database,
    dispatcher,
    usage,
    access,
    counters,
    services,
    /** Semantic search's parts when EMBEDDINGS_URL is set (the server starts its background work). */
    embeddings,
    /**
     * Stops the webhook worker and the embedding queue, flushes buffered usage and memory accesses, then
     * closes counters and the database.
     */
    async close() {
      clearInterval(pruneTimer);
      clearInterval(statisticsTimer);
      await Promise.all([pruning, analysing]);
      // The workers first: deliveries and embeddings in flight settle before the database closes.
      await dispatcher.stop();
      await embeddings?.close();
      await Promise.all([usage.close(), access.close()]);
      await counters.close();
      await database.close();
    },
  };
}

export type Container = Awaited<ReturnType<typeof createContainer>>;
