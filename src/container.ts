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
import { createBundleService } from './domain/bundles/bundle-service.js';
import { type Clock, systemClock } from './domain/common/clock.js';
import { createIdGenerator, type IdGenerator } from './domain/common/ids.js';
import { createContextService } from './domain/context/context-service.js';
import type { WindowCounter } from './domain/limits/rate-limit.js';
import { createMemoryBatchService } from './domain/memories/memory-batch-service.js';
import { createMemoryService } from './domain/memories/memory-service.js';
import { createPromptService } from './domain/prompts/prompt-service.js';
import { createLogger, type Logger, throttled } from './logger.js';
import { type Database, migrateToLatest, openDatabase } from './storage/database.js';
import { createStores } from './storage/stores.js';

export interface ContainerOptions {
  clock?: Clock;
  ids?: IdGenerator;
  counters?: WindowCounter;
  logger?: Logger;
  /** Log sink for background failures (batched writes); defaults to the logger. */
  onBackgroundError?: (error: unknown) => void;
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

/**
 * Composition root: database → stores → services. Transports receive the finished container and
 * never construct anything themselves.
 */
export async function createContainer(config: Config, options: ContainerOptions = {}) {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config);
  const ids = options.ids ?? createIdGenerator(clock);
  const database: Database = await openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }

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

  const passwords = createScryptHasher(config.passwordHashing);
  const promptService = createPromptService({
    prompts: stores.prompts,
    clock,
    ids,
    renderMaxChars: config.renderMaxChars,
    changeStamp: database.changeStamp,
  });
  const artifactService = createArtifactService({ artifacts: stores.artifacts, clock, ids, limits: config.artifacts });
  const memoryService = createMemoryService({ memories: stores.memories, access, clock, ids, ranking: config.ranking });
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
    }),
    memories: memoryService,
    context: createContextService({
      rankMemories: memoryService.rank,
      mcpPrompts: promptService.listForMcp,
      artifacts: (actor, project, limit) =>
        artifactService.list(actor, { ...(project !== undefined && { project }), label: [], page: 1, per_page: limit }),
    }),
    memoryBatches: createMemoryBatchService({ memories: stores.memories, clock, ids }),
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

  return {
    config,
    logger,
    clock,
    database,
    usage,
    access,
    counters,
    services,
    /** Flushes buffered usage and memory accesses, then closes counters and the database. */
    async close() {
      await Promise.all([usage.close(), access.close()]);
      await counters.close();
      await database.close();
    },
  };
}

export type Container = Awaited<ReturnType<typeof createContainer>>;
