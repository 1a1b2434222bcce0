import { isIP } from 'node:net';
import { z } from 'zod';
import {
  MEMORY_VERSION_RETENTION_DEFAULT,
  SIGNUP_MODES,
  type SignupMode,
  SLUG_MAX,
  SLUG_PATTERN,
} from './contract/index.js';
import { OWASP_SCRYPT, type ScryptParameters } from './domain/accounts/password.js';
import type { TierLimits } from './domain/limits/rate-limit.js';
import { DEFAULT_RANKING, type RankingConfig } from './domain/memories/ranking.js';
import { DEFAULT_SEMANTIC, DEFAULT_SEMANTIC_WEIGHT } from './domain/memories/semantic.js';
import { DEFAULT_RENDER_MAX_CHARS } from './domain/prompts/template.js';
import type { EmbeddingsConfig } from './embeddings/index.js';
import { parseDatabaseUrl } from './storage/database.js';

const MiB = 1024 * 1024;

/** A number from the environment: plain decimal notation only (no hex, exponents or units), within bounds. */
const numberSetting = (fallback: number, min: number, max: number, integer: boolean) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') return fallback;
      const wellFormed = (integer ? /^\s*\d+\s*$/ : /^\s*\d+(?:\.\d+)?\s*$/).test(raw);
      const value = Number(raw);
      if (!wellFormed || value < min || value > max) {
        const kind = integer ? 'an integer' : 'a number';
        ctx.addIssue({ code: 'custom', message: `must be ${kind} between ${min} and ${max}` });
        return z.NEVER;
      }
      return value;
    });

const int = (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) => numberSetting(fallback, min, max, true);
const decimal = (fallback: number, min: number, max: number) => numberSetting(fallback, min, max, false);

/** A comma-separated list from the environment: entries trimmed, empty ones dropped; unset is empty. */
const commaList = z
  .string()
  .optional()
  .transform((raw) =>
    (raw ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  );

/**
 * Which peers may set the client address with X-Forwarded-For: none (`false`, the default), the nearest
 * `n` hops, or proxies at the listed addresses/CIDRs (or the proxy-addr names loopback, linklocal,
 * uniquelocal). `true` ("trust every hop") is refused: any client could then choose its own address and
 * escape the per-address limits.
 */
export type TrustProxy = false | number | string[];

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const TRUST_PROXY_HELP =
  'use false (trust no proxy), the number of proxies in front (e.g. 1), or their addresses/CIDRs, comma-separated (e.g. 10.0.0.5,10.1.0.0/16,fd00::/8)';

/** Why one entry of a TRUST_PROXY list is not an address, a CIDR or a known name; undefined if it is. */
function proxyEntryProblem(entry: string): string | undefined {
  if (PROXY_NAMES.has(entry.toLowerCase())) return undefined;
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return `"${entry}" is not an IP address or CIDR`;
  if (slash >= 0) {
    const prefix = entry.slice(slash + 1);
    const max = family === 4 ? 32 : 128;
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `"${entry}": the prefix length must be 0 to ${max}`;
  }
  return undefined;
}

const trustProxySetting = z
  .string()
  .optional()
  .transform((raw, ctx): TrustProxy => {
    const value = raw?.trim() ?? '';
    if (value === '' || /^false$/i.test(value)) return false;
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      if (hops > 100) ctx.addIssue({ code: 'custom', message: `a hop count must be 0 to 100; ${TRUST_PROXY_HELP}` });
      return hops === 0 ? false : hops;
    }
    if (/^true$/i.test(value)) {
      ctx.addIssue({
        code: 'custom',
        message: `true (trust every hop) is not accepted: any client could pick its own address with X-Forwarded-For; ${TRUST_PROXY_HELP}`,
      });
      return false;
    }
    const entries = value.split(',').map((entry) => entry.trim());
    for (const entry of entries) {
      const problem = entry === '' ? 'empty entry' : proxyEntryProblem(entry);
      if (problem) ctx.addIssue({ code: 'custom', message: `${problem}; ${TRUST_PROXY_HELP}` });
    }
    return entries;
  });

/** true/false (also 1/0, yes/no, on/off) from the environment. */
const flag = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const value = raw?.trim().toLowerCase();
      if (value === undefined || value === '') return fallback;
      if (['true', '1', 'yes', 'on'].includes(value)) return true;
      if (['false', '0', 'no', 'off'].includes(value)) return false;
      ctx.addIssue({ code: 'custom', message: 'must be true or false' });
      return z.NEVER;
    });

/** Every setting, its environment variable and default. The README's configuration table mirrors this. */
const environment = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(8080, 0, 65535),
  DATABASE_URL: z
    .string()
    .default('sqlite:./data/cairn.db')
    .superRefine((value, ctx) => {
      try {
        parseDatabaseUrl(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  PG_PREPARED_STATEMENTS: flag(true),
  REDIS_URL: z
    .string()
    .optional()
    .transform((raw) => (raw?.trim() ? raw.trim() : undefined))
    .refine((value) => value === undefined || /^rediss?:\/\//.test(value), 'must start with redis:// or rediss://'),
  REDIS_KEY_PREFIX: z.string().min(1).max(100).default('cairn:'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SLOW_REQUEST_MS: int(1000, 0, 3_600_000),
  RATE_LIMIT_FREE: int(1000, 0),
  RATE_LIMIT_PRO: int(10_000, 0),
  RATE_LIMIT_ENTERPRISE: int(100_000, 0),
  AUTH_FAILURE_LIMIT: int(100, 1),
  DASHBOARD_RATE_LIMIT: int(3600, 1),
  SIGNUP_ADDRESS_LIMIT: int(20, 1),
  USAGE_FLUSH_INTERVAL_MS: int(5000, 100, 3_600_000),
  AUDIT_RETENTION_DAYS: int(365, 0, 36_500),
  AUDIT_PRUNE_INTERVAL_MS: int(3_600_000, 1000, 86_400_000),
  BODY_LIMIT_BYTES: int(1 * MiB, 1024, 1024 * MiB),
  TRUST_PROXY: trustProxySetting,
  SHUTDOWN_TIMEOUT_MS: int(10_000, 0, 600_000),
  SIGNUP_MODE: z.enum(SIGNUP_MODES).default('open'),
  SESSION_TTL_DAYS: int(30, 1, 365),
  MCP_ALLOWED_ORIGINS: commaList,
  MCP_ALLOWED_HOSTS: commaList,
  ARTIFACT_MAX_BYTES: int(10 * MiB, 1024, 1024 * MiB),
  ARTIFACT_VERSION_RETENTION: int(100, 0, 1_000_000),
  MEMORY_VERSION_RETENTION: int(MEMORY_VERSION_RETENTION_DEFAULT, 0, 1_000_000),
  IMPORT_MAX_BYTES: int(1024 * MiB, 1024, 64 * 1024 * MiB),
  RENDER_MAX_CHARS: int(DEFAULT_RENDER_MAX_CHARS, 100_000, 100_000_000),
  DEFAULT_PROMPT_ENVIRONMENT: z
    .string()
    .optional()
    .transform((raw) => (raw?.trim() ? raw.trim() : undefined))
    .refine(
      (name) => name === undefined || (name.length <= SLUG_MAX && SLUG_PATTERN.test(name)),
      'must be an environment name: lowercase letters and digits separated by single hyphens, at most 100 characters',
    ),
  IMPORT_MAX_LINE_BYTES: int(64 * MiB, 1024, 1024 * MiB),
  IMPORT_MAX_CONCURRENT: int(4, 1, 1000),
  IMPORT_MAX_CONCURRENT_PER_USER: int(1, 1, 100),
  IMPORT_SPOOL_DIR: z
    .string()
    .optional()
    .transform((raw) => (raw?.trim() ? raw.trim() : undefined)),
  MEMORY_WEIGHT_KEYWORD: decimal(DEFAULT_RANKING.weights.keyword, 0, 100),
  MEMORY_WEIGHT_PROJECT: decimal(DEFAULT_RANKING.weights.project, 0, 100),
  MEMORY_WEIGHT_PRIORITY: decimal(DEFAULT_RANKING.weights.priority, 0, 100),
  MEMORY_WEIGHT_RECENCY: decimal(DEFAULT_RANKING.weights.recency, 0, 100),
  MEMORY_RECENCY_HALF_LIFE_DAYS: decimal(DEFAULT_RANKING.recencyHalfLifeDays, 0.001, 36_500),
  MEMORY_SEARCH_CANDIDATES: int(DEFAULT_RANKING.candidateLimit, 100, 100_000),
  // Optional semantic search (docs/memory-search.md); unset EMBEDDINGS_URL = keyword search only.
  EMBEDDINGS_URL: z
    .string()
    .optional()
    .transform((raw) => (raw?.trim() ? raw.trim() : undefined))
    .refine(
      (value) => value === undefined || /^https?:\/\/[^\s/]+/.test(value),
      'must be an http:// or https:// URL of an OpenAI-compatible embeddings endpoint (…/v1 or …/v1/embeddings)',
    ),
  EMBEDDINGS_MODEL: z
    .string()
    .optional()
    .transform((raw) => (raw?.trim() ? raw.trim() : undefined))
    .refine((value) => value === undefined || value.length <= 200, 'must be at most 200 characters'),
  EMBEDDINGS_API_KEY: z
    .string()
    .optional()
    .transform((raw) => (raw?.trim() ? raw.trim() : undefined)),
  EMBEDDINGS_BATCH_SIZE: int(32, 1, 2048),
  EMBEDDINGS_TIMEOUT_MS: int(30_000, 100, 600_000),
  EMBEDDINGS_RETRIES: int(3, 0, 10),
  EMBEDDINGS_CONCURRENCY: int(2, 1, 64),
  EMBEDDINGS_QUERY_TIMEOUT_MS: int(DEFAULT_SEMANTIC.queryTimeoutMs, 50, 60_000),
  EMBEDDINGS_RETRY_AFTER_MS: int(DEFAULT_SEMANTIC.retryAfterMs, 0, 3_600_000),
  EMBEDDINGS_CANDIDATES: int(DEFAULT_SEMANTIC.candidates, 1, 1000),
  EMBEDDINGS_MIN_SIMILARITY: decimal(DEFAULT_SEMANTIC.minSimilarity, 0, 1),
  EMBEDDINGS_SCAN_LIMIT: int(20_000, 100, 1_000_000),
  EMBEDDINGS_QUEUE_MAX: int(10_000, 1, 1_000_000),
  MEMORY_WEIGHT_SEMANTIC: decimal(DEFAULT_SEMANTIC_WEIGHT, 0, 100),
  // Slow clients and slow requests (src/http/timeouts.ts explains each).
  HEADERS_TIMEOUT_MS: int(10_000, 50, 600_000),
  REQUEST_TIMEOUT_MS: int(30_000, 10, 3_600_000),
  STREAM_TIMEOUT_MS: int(3_600_000, 1000, 86_400_000),
  IDLE_TIMEOUT_MS: int(60_000, 100, 3_600_000),
  KEEP_ALIVE_TIMEOUT_MS: int(72_000, 100, 3_600_000),
  // Webhooks (docs/webhooks.md).
  WEBHOOK_WORKER: flag(true),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag(false),
  WEBHOOK_MAX_ENDPOINTS: int(10, 1, 1000),
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 120_000),
  WEBHOOK_MAX_ATTEMPTS: int(12, 1, 100),
  WEBHOOK_RETRY_BASE_MS: int(10_000, 0, 86_400_000),
  WEBHOOK_RETRY_MAX_MS: int(21_600_000, 0, 604_800_000),
  WEBHOOK_DISABLE_AFTER_FAILURES: int(30, 1, 100_000),
  WEBHOOK_POLL_INTERVAL_MS: int(1000, 10, 3_600_000),
  WEBHOOK_BATCH_SIZE: int(16, 1, 1000),
  WEBHOOK_LOG_RETENTION_DAYS: int(30, 1, 3650),
});

export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  /** PostgreSQL: the statements compiled once run as named prepared statements (storage/database.ts). */
  postgresPreparedStatements: boolean;
  /** Shared counters for several instances; absent = in-process counters (one instance). */
  redisUrl: string | undefined;
  /** Prefix of every Redis key, so several installations (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  logLevel: z.infer<typeof environment>['LOG_LEVEL'];
  /** A request that takes this long or longer is logged at warn; the others only at debug. */
  slowRequestMs: number;
  tierLimits: TierLimits;
  authFailureLimit: number;
  /** Dashboard API requests per signed-in user per hour (its own budget, apart from the API keys' limit). */
  dashboardRateLimit: number;
  /** Sign-up attempts per client address per hour. */
  signupAddressLimit: number;
  usageFlushIntervalMs: number;
  /** Audit events older than this many days are pruned (0 = kept forever), every `pruneIntervalMs`. */
  audit: { retentionDays: number; pruneIntervalMs: number };
  bodyLimitBytes: number;
  /** Which peers may set the client address with X-Forwarded-For (see TrustProxy). */
  trustProxy: TrustProxy;
  shutdownTimeoutMs: number;
  artifacts: { maxContentBytes: number; keepVersions: number };
  /** Previous versions kept per memory (0 keeps none). */
  memoryVersionRetention: number;
  /** The largest import bundle accepted (it is spooled to a temporary file, not held in memory). */
  importMaxBytes: number;
  /** The largest rendered prompt (references expanded, variables filled), in characters; past it, a 400. */
  renderMaxChars: number;
  /**
   * The environment MCP `prompts/get` and `svc_get_prompt` serve when none is named and the prompt has it
   * (otherwise the latest version); absent = always the latest.
   */
  defaultPromptEnvironment: string | undefined;
  /** The longest line of a bundle (bytes): a longer one is refused while it streams in, never held whole. */
  importMaxLineBytes: number;
  /** Imports running at once on this instance, and per user on this instance (each holds a spool file). */
  importMaxConcurrent: number;
  importMaxConcurrentPerUser: number;
  /** Where bundles are spooled; absent = a per-OS-user directory under the system temporary directory. */
  importSpoolDir: string | undefined;
  /** Who may create a dashboard account: anyone, holders of an invite code, or nobody (the first user always can). */
  signupMode: SignupMode;
  sessionTtlDays: number;
  /** scrypt parameters of new password hashes (stored hashes carry their own); tests lower them. */
  passwordHashing: ScryptParameters;
  /** Browser origins allowed to call the MCP endpoint besides the server's own. */
  mcpAllowedOrigins: string[];
  /** Host header values accepted by the MCP endpoint; empty = loopback names when bound to loopback, else any. */
  mcpAllowedHosts: string[];
  ranking: RankingConfig;
  /** Optional semantic search; absent (EMBEDDINGS_URL unset) = keyword search only, as before. */
  embeddings: EmbeddingsConfig | undefined;
  timeouts: ServerTimeouts;
  webhooks: WebhookSettings;
}

/** Webhook delivery (docs/webhooks.md). */
export interface WebhookSettings {
  /** Run the delivery worker in this process (off on instances that should only serve requests). */
  worker: boolean;
  /** Let endpoints be loopback, private or link-local addresses (refused by default: SSRF). */
  allowPrivateNetworks: boolean;
  maxEndpointsPerUser: number;
  /** The whole exchange with a receiver; the lease on a delivery is this plus 2 s. */
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  disableAfterFailures: number;
  pollIntervalMs: number;
  batchSize: number;
  /** Days the delivery log and settled deliveries are kept. */
  logRetentionDays: number;
}

/** Milliseconds; what each bounds is described in src/http/timeouts.ts. */
export interface ServerTimeouts {
  /** The whole header block of a request must arrive within this (node `headersTimeout`): 408 and closed. */
  headersMs: number;
  /** Budget of an ordinary request from routing to reply: 408 if its body is still arriving, else 503. */
  requestMs: number;
  /** The same budget for the streaming bundle routes (import, export); also node's `requestTimeout`. */
  streamMs: number;
  /** A connection with a request in progress and no bytes moving either way for this long is closed. */
  idleMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
}

import { ConfigError } from './config-error.js';

export { ConfigError };

/** Reads and validates the environment; every problem is listed in one clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = environment.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const e = result.data;
  const crossProblems = [
    ...(e.IDLE_TIMEOUT_MS <= e.REQUEST_TIMEOUT_MS
      ? ['  IDLE_TIMEOUT_MS: must be larger than REQUEST_TIMEOUT_MS (else a slow request is cut without its 503)']
      : []),
    ...(e.HEADERS_TIMEOUT_MS > e.STREAM_TIMEOUT_MS ? ['  HEADERS_TIMEOUT_MS: must not exceed STREAM_TIMEOUT_MS'] : []),
    ...(e.EMBEDDINGS_URL !== undefined && e.EMBEDDINGS_MODEL === undefined
      ? ['  EMBEDDINGS_MODEL: required with EMBEDDINGS_URL (the model name the provider knows, e.g. nomic-embed-text)']
      : []),
    ...(e.EMBEDDINGS_URL === undefined && (e.EMBEDDINGS_MODEL !== undefined || e.EMBEDDINGS_API_KEY !== undefined)
      ? ['  EMBEDDINGS_URL: required with EMBEDDINGS_MODEL or EMBEDDINGS_API_KEY (semantic search is off without it)']
      : []),
  ];
  if (crossProblems.length > 0) throw new ConfigError(`Invalid configuration:\n${crossProblems.join('\n')}`);
  return {
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    postgresPreparedStatements: e.PG_PREPARED_STATEMENTS,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    logLevel: e.LOG_LEVEL,
    slowRequestMs: e.SLOW_REQUEST_MS,
    tierLimits: { free: e.RATE_LIMIT_FREE, pro: e.RATE_LIMIT_PRO, enterprise: e.RATE_LIMIT_ENTERPRISE },
    authFailureLimit: e.AUTH_FAILURE_LIMIT,
    dashboardRateLimit: e.DASHBOARD_RATE_LIMIT,
    signupAddressLimit: e.SIGNUP_ADDRESS_LIMIT,
    usageFlushIntervalMs: e.USAGE_FLUSH_INTERVAL_MS,
    audit: { retentionDays: e.AUDIT_RETENTION_DAYS, pruneIntervalMs: e.AUDIT_PRUNE_INTERVAL_MS },
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    trustProxy: e.TRUST_PROXY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    artifacts: { maxContentBytes: e.ARTIFACT_MAX_BYTES, keepVersions: e.ARTIFACT_VERSION_RETENTION },
    memoryVersionRetention: e.MEMORY_VERSION_RETENTION,
    importMaxBytes: e.IMPORT_MAX_BYTES,
    renderMaxChars: e.RENDER_MAX_CHARS,
    defaultPromptEnvironment: e.DEFAULT_PROMPT_ENVIRONMENT,
    importMaxLineBytes: e.IMPORT_MAX_LINE_BYTES,
    importMaxConcurrent: e.IMPORT_MAX_CONCURRENT,
    importMaxConcurrentPerUser: e.IMPORT_MAX_CONCURRENT_PER_USER,
    importSpoolDir: e.IMPORT_SPOOL_DIR,
    signupMode: e.SIGNUP_MODE,
    sessionTtlDays: e.SESSION_TTL_DAYS,
    passwordHashing: OWASP_SCRYPT,
    mcpAllowedOrigins: e.MCP_ALLOWED_ORIGINS,
    mcpAllowedHosts: e.MCP_ALLOWED_HOSTS,
    ranking: {
      weights: {
        keyword: e.MEMORY_WEIGHT_KEYWORD,
        project: e.MEMORY_WEIGHT_PROJECT,
        priority: e.MEMORY_WEIGHT_PRIORITY,
        recency: e.MEMORY_WEIGHT_RECENCY,
        // Only with embeddings: without them scores stay exactly as they were.
        ...(e.EMBEDDINGS_URL !== undefined && { semantic: e.MEMORY_WEIGHT_SEMANTIC }),
      },
      recencyHalfLifeDays: e.MEMORY_RECENCY_HALF_LIFE_DAYS,
      candidateLimit: e.MEMORY_SEARCH_CANDIDATES,
    },
    embeddings:
      e.EMBEDDINGS_URL === undefined || e.EMBEDDINGS_MODEL === undefined
        ? undefined
        : {
            url: e.EMBEDDINGS_URL,
            model: e.EMBEDDINGS_MODEL,
            apiKey: e.EMBEDDINGS_API_KEY,
            batchSize: e.EMBEDDINGS_BATCH_SIZE,
            timeoutMs: e.EMBEDDINGS_TIMEOUT_MS,
            retries: e.EMBEDDINGS_RETRIES,
            concurrency: e.EMBEDDINGS_CONCURRENCY,
            scanLimit: e.EMBEDDINGS_SCAN_LIMIT,
            maxQueue: e.EMBEDDINGS_QUEUE_MAX,
            search: {
              candidates: e.EMBEDDINGS_CANDIDATES,
              minSimilarity: e.EMBEDDINGS_MIN_SIMILARITY,
              queryTimeoutMs: e.EMBEDDINGS_QUERY_TIMEOUT_MS,
              retryAfterMs: e.EMBEDDINGS_RETRY_AFTER_MS,
            },
          },
    timeouts: {
      headersMs: e.HEADERS_TIMEOUT_MS,
      requestMs: e.REQUEST_TIMEOUT_MS,
      streamMs: e.STREAM_TIMEOUT_MS,
      idleMs: e.IDLE_TIMEOUT_MS,
      keepAliveMs: e.KEEP_ALIVE_TIMEOUT_MS,
    },
    webhooks: {
      worker: e.WEBHOOK_WORKER,
      allowPrivateNetworks: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      maxEndpointsPerUser: e.WEBHOOK_MAX_ENDPOINTS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: e.WEBHOOK_RETRY_MAX_MS,
      disableAfterFailures: e.WEBHOOK_DISABLE_AFTER_FAILURES,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      batchSize: e.WEBHOOK_BATCH_SIZE,
      logRetentionDays: e.WEBHOOK_LOG_RETENTION_DAYS,
    },
  };
}
