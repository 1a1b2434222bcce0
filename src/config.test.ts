import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

/** The error loadConfig throws for `env`, or a failure if it throws nothing. */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected loadConfig to throw for ${JSON.stringify(env)}`);
}

/** The variable names the error message lists as problems (one `  NAME: message` line each). */
const problemNames = (error: ConfigError): string[] =>
  error.message
    .split('\n')
    .slice(1)
    .map((line) => /^ {2}([A-Z_]+): /.exec(line)?.[1] ?? `<unparsed line: ${line}>`);

describe('loadConfig', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('uses the documented defaults for an empty environment', () => {
    expect(loadConfig({})).toEqual({
      host: '127.0.0.1',
      port: 8080,
      databaseUrl: 'sqlite:./data/cairn.db',
      postgresPreparedStatements: true,
      redisUrl: undefined,
      redisKeyPrefix: 'cairn:',
      logLevel: 'info',
      slowRequestMs: 1000,
      tierLimits: { free: 1000, pro: 10_000, enterprise: 100_000 },
      authFailureLimit: 100,
      dashboardRateLimit: 3600,
      signupAddressLimit: 20,
      usageFlushIntervalMs: 5000,
      audit: { retentionDays: 365, pruneIntervalMs: 3_600_000 },
      webhooks: {
        worker: true,
        allowPrivateNetworks: false,
        maxEndpointsPerUser: 10,
        timeoutMs: 10_000,
        maxAttempts: 12,
        retryBaseMs: 10_000,
        retryMaxMs: 21_600_000,
        disableAfterFailures: 30,
        pollIntervalMs: 1000,
        batchSize: 16,
        logRetentionDays: 30,
      },
      bodyLimitBytes: 1024 * 1024,
      trustProxy: false,
      shutdownTimeoutMs: 10_000,
      artifacts: { maxContentBytes: 10 * 1024 * 1024, keepVersions: 100 },
      memoryVersionRetention: 100,
      importMaxBytes: 1024 * 1024 * 1024,
      renderMaxChars: 1_000_000,
      importMaxLineBytes: 64 * 1024 * 1024,
      importMaxConcurrent: 4,
      importMaxConcurrentPerUser: 1,
      importSpoolDir: undefined,
      signupMode: 'open',
      sessionTtlDays: 30,
      passwordHashing: { logN: 17, r: 8, p: 1 },
      mcpAllowedOrigins: [],
      mcpAllowedHosts: [],
      ranking: {
        weights: { keyword: 0.6, project: 0.1, priority: 0.15, recency: 0.05 },
        recencyHalfLifeDays: 30,
        candidateLimit: 500,
      },
      timeouts: { headersMs: 10_000, requestMs: 30_000, streamMs: 3_600_000, idleMs: 60_000, keepAliveMs: 72_000 },
    });
  });

  it('treats empty or blank numeric and boolean variables as unset', () => {
    const config = loadConfig({ PORT: '', RATE_LIMIT_FREE: '  ', TRUST_PROXY: '' });
    expect(config.port).toBe(8080);
    expect(config.tierLimits.free).toBe(1000);
    expect(config.trustProxy).toBe(false);
  });

  it('applies overrides from the environment', () => {
    expect(
      loadConfig({
        HOST: '0.0.0.0',
        PORT: '3000',
        DATABASE_URL: 'postgres://cairn:secret@db:5432/cairn',
        REDIS_URL: 'redis://cache:6379/2',
        LOG_LEVEL: 'debug',
        SLOW_REQUEST_MS: '250',
        RATE_LIMIT_FREE: '5',
        RATE_LIMIT_PRO: '50',
        RATE_LIMIT_ENTERPRISE: '500',
        AUTH_FAILURE_LIMIT: '7',
        DASHBOARD_RATE_LIMIT: '90',
        SIGNUP_ADDRESS_LIMIT: '4',
        USAGE_FLUSH_INTERVAL_MS: '250',
        AUDIT_RETENTION_DAYS: '0',
        AUDIT_PRUNE_INTERVAL_MS: '60000',
        BODY_LIMIT_BYTES: '2048',
        TRUST_PROXY: '10.0.0.0/8, ::1',
        SHUTDOWN_TIMEOUT_MS: '0',
        ARTIFACT_MAX_BYTES: '4096',
        SIGNUP_MODE: 'invite',
        SESSION_TTL_DAYS: '7',
        MCP_ALLOWED_ORIGINS: 'https://a.example, https://b.example',
        MCP_ALLOWED_HOSTS: 'cairn.example:443',
        ARTIFACT_VERSION_RETENTION: '0',
        MEMORY_VERSION_RETENTION: '3',
        MEMORY_WEIGHT_KEYWORD: '1',
        MEMORY_WEIGHT_PROJECT: '0.3',
        MEMORY_WEIGHT_PRIORITY: '0',
        MEMORY_WEIGHT_RECENCY: '2.5',
        MEMORY_RECENCY_HALF_LIFE_DAYS: '0.5',
        MEMORY_SEARCH_CANDIDATES: '500',
        IMPORT_MAX_BYTES: '65536',
        RENDER_MAX_CHARS: '200000',
        HEADERS_TIMEOUT_MS: '5000',
        REQUEST_TIMEOUT_MS: '20000',
        STREAM_TIMEOUT_MS: '600000',
        IDLE_TIMEOUT_MS: '25000',
        KEEP_ALIVE_TIMEOUT_MS: '65000',
        IMPORT_MAX_LINE_BYTES: '4096',
        IMPORT_MAX_CONCURRENT: '2',
        IMPORT_MAX_CONCURRENT_PER_USER: '2',
        IMPORT_SPOOL_DIR: '/var/spool/cairn',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes',
        WEBHOOK_TIMEOUT_MS: '2500',
        WEBHOOK_WORKER: 'false',
        PG_PREPARED_STATEMENTS: 'off',
      }),
    ).toEqual({
      host: '0.0.0.0',
      port: 3000,
      databaseUrl: 'postgres://cairn:secret@db:5432/cairn',
      postgresPreparedStatements: false,
      redisUrl: 'redis://cache:6379/2',
      redisKeyPrefix: 'cairn:',
      logLevel: 'debug',
      slowRequestMs: 250,
      tierLimits: { free: 5, pro: 50, enterprise: 500 },
      authFailureLimit: 7,
      dashboardRateLimit: 90,
      signupAddressLimit: 4,
      usageFlushIntervalMs: 250,
      audit: { retentionDays: 0, pruneIntervalMs: 60_000 },
      webhooks: {
        worker: false,
        allowPrivateNetworks: true,
        maxEndpointsPerUser: 10,
        timeoutMs: 2500,
        maxAttempts: 12,
        retryBaseMs: 10_000,
        retryMaxMs: 21_600_000,
        disableAfterFailures: 30,
        pollIntervalMs: 1000,
        batchSize: 16,
        logRetentionDays: 30,
      },
      bodyLimitBytes: 2048,
      trustProxy: ['10.0.0.0/8', '::1'],
      shutdownTimeoutMs: 0,
      artifacts: { maxContentBytes: 4096, keepVersions: 0 },
      memoryVersionRetention: 3,
      importMaxBytes: 65536,
      renderMaxChars: 200_000,
      importMaxLineBytes: 4096,
      importMaxConcurrent: 2,
      importMaxConcurrentPerUser: 2,
      importSpoolDir: '/var/spool/cairn',
      signupMode: 'invite',
      sessionTtlDays: 7,
      passwordHashing: { logN: 17, r: 8, p: 1 },
      mcpAllowedOrigins: ['https://a.example', 'https://b.example'],
      mcpAllowedHosts: ['cairn.example:443'],
      ranking: {
        weights: { keyword: 1, project: 0.3, priority: 0, recency: 2.5 },
        recencyHalfLifeDays: 0.5,
        candidateLimit: 500,
      },
      timeouts: { headersMs: 5000, requestMs: 20_000, streamMs: 600_000, idleMs: 25_000, keepAliveMs: 65_000 },
    });
  });

  it('accepts every supported database URL form', () => {
    for (const url of [
      'sqlite:./x.db',
      'sqlite:/var/lib/cairn.db',
      'sqlite::memory:',
      'postgres://h/db',
      'postgresql://h/db',
    ]) {
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl, url).toBe(url);
    }
  });

  it('accepts every log level', () => {
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) {
      expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    }
  });

  it('reads TRUST_PROXY as nothing trusted, a hop count, or a list of addresses and CIDRs', () => {
    for (const none of ['', ' ', 'false', 'FALSE', '0']) {
      expect(loadConfig({ TRUST_PROXY: none }).trustProxy, none).toBe(false);
    }
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: ' 2 ' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '100' }).trustProxy).toBe(100);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.5' }).trustProxy).toEqual(['10.0.0.5']);
    expect(
      loadConfig({ TRUST_PROXY: '10.0.0.5, 10.1.0.0/16,192.168.0.0/0, fd00::/8, ::1, ::ffff:10.0.0.1/128' }).trustProxy,
    ).toEqual(['10.0.0.5', '10.1.0.0/16', '192.168.0.0/0', 'fd00::/8', '::1', '::ffff:10.0.0.1/128']);
    expect(loadConfig({ TRUST_PROXY: 'loopback,uniquelocal,LinkLocal' }).trustProxy).toEqual([
      'loopback',
      'uniquelocal',
      'LinkLocal',
    ]);
  });

  it('refuses TRUST_PROXY=true, explaining the accepted forms', () => {
    for (const everything of ['true', 'TRUE', ' True ']) {
      const error = configError({ TRUST_PROXY: everything });
      expect(problemNames(error)).toEqual(['TRUST_PROXY']);
      expect(error.message).toContain('true (trust every hop) is not accepted');
      expect(error.message).toContain('the number of proxies in front (e.g. 1)');
    }
  });

  it.each([
    ['yes', '"yes" is not an IP address or CIDR'],
    ['101', 'a hop count must be 0 to 100'],
    ['-1', '"-1" is not an IP address or CIDR'],
    ['1.5', '"1.5" is not an IP address or CIDR'],
    ['10.0.0.0/33', '"10.0.0.0/33": the prefix length must be 0 to 32'],
    ['fd00::/129', '"fd00::/129": the prefix length must be 0 to 128'],
    ['10.0.0.0/8/8', '"10.0.0.0/8/8": the prefix length must be 0 to 32'],
    ['10.0.0.0/', '"10.0.0.0/": the prefix length must be 0 to 32'],
    ['10.0.0.0/255.0.0.0', '"10.0.0.0/255.0.0.0": the prefix length must be 0 to 32'],
    ['256.0.0.1', '"256.0.0.1" is not an IP address or CIDR'],
    ['proxy.internal', '"proxy.internal" is not an IP address or CIDR'],
    ['10.0.0.5,,10.0.0.6', 'empty entry'],
    ['10.0.0.5,', 'empty entry'],
  ])('refuses TRUST_PROXY=%j (%s)', (value, message) => {
    const error = configError({ TRUST_PROXY: value });
    expect(problemNames(error)).toEqual(['TRUST_PROXY']);
    expect(error.message).toContain(message);
  });

  it('checks the timeouts against each other', () => {
    const idle = configError({ REQUEST_TIMEOUT_MS: '60000' });
    expect(problemNames(idle)).toEqual(['IDLE_TIMEOUT_MS']);
    expect(idle.message).toContain('must be larger than REQUEST_TIMEOUT_MS');
    const headers = configError({ HEADERS_TIMEOUT_MS: '20000', STREAM_TIMEOUT_MS: '10000' });
    expect(problemNames(headers)).toEqual(['HEADERS_TIMEOUT_MS']);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '60000', IDLE_TIMEOUT_MS: '60001' }).timeouts.requestMs).toBe(60_000);
  });

  it('accepts the port range bounds', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
  });

  it('ignores unrelated environment variables', () => {
    expect(loadConfig({ PATH: '/usr/bin', HOME: '/root', SOMETHING_ELSE: 'x' })).toEqual(loadConfig({}));
  });

  it('reads process.env by default', () => {
    vi.stubEnv('PORT', '9123');
    vi.stubEnv('RATE_LIMIT_PRO', '42');
    const config = loadConfig();
    expect(config.port).toBe(9123);
    expect(config.tierLimits.pro).toBe(42);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'sqlite:'],
    ['DATABASE_URL', './data/cairn.db'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_LEVEL', 'INFO'],
    ['TRUST_PROXY', 'maybe'],
    ['HEADERS_TIMEOUT_MS', '10'],
    ['REQUEST_TIMEOUT_MS', '0'],
    ['STREAM_TIMEOUT_MS', '86400001'],
    ['IDLE_TIMEOUT_MS', '99'],
    ['KEEP_ALIVE_TIMEOUT_MS', '72s'],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'maybe'],
    ['WEBHOOK_TIMEOUT_MS', '10'],
    ['WEBHOOK_MAX_ATTEMPTS', '0'],
    ['RATE_LIMIT_FREE', '-5'],
    ['RATE_LIMIT_PRO', 'lots'],
    ['RATE_LIMIT_ENTERPRISE', '1.5'],
    ['AUTH_FAILURE_LIMIT', '0'],
    ['DASHBOARD_RATE_LIMIT', '0'],
    ['SIGNUP_ADDRESS_LIMIT', 'many'],
    ['USAGE_FLUSH_INTERVAL_MS', '10'],
    ['AUDIT_RETENTION_DAYS', '-1'],
    ['AUDIT_PRUNE_INTERVAL_MS', '10'],
    ['BODY_LIMIT_BYTES', '100'],
    ['SHUTDOWN_TIMEOUT_MS', '600001'],
    ['HOST', ''],
  ])('rejects %s=%j with a ConfigError naming the variable', (name, value) => {
    const error = configError({ [name]: value });
    expect(error.message).toMatch(/^Invalid configuration:\n/);
    expect(problemNames(error)).toEqual([name]);
  });

  it('names every bad variable in one message, and only those', () => {
    const error = configError({
      HOST: 'example.org',
      PORT: 'abc',
      DATABASE_URL: 'mysql://x',
      LOG_LEVEL: 'loud',
      TRUST_PROXY: 'maybe',
      RATE_LIMIT_FREE: '10',
    });
    expect(problemNames(error).sort()).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'PORT', 'TRUST_PROXY']);
  });

  it('explains each problem', () => {
    const error = configError({ PORT: '70000', DATABASE_URL: 'mysql://x', TRUST_PROXY: 'maybe' });
    expect(error.message).toContain('PORT: must be an integer between 0 and 65535');
    expect(error.message).toMatch(/DATABASE_URL: .*sqlite:.*postgres:\/\//);
    expect(error.message).toContain('TRUST_PROXY: "maybe" is not an IP address or CIDR; use false');
  });

  it('reads DEFAULT_PROMPT_ENVIRONMENT as an environment name (blank = none) and refuses anything else', () => {
    expect(loadConfig({}).defaultPromptEnvironment).toBeUndefined();
    expect(loadConfig({ DEFAULT_PROMPT_ENVIRONMENT: '  ' }).defaultPromptEnvironment).toBeUndefined();
    expect(loadConfig({ DEFAULT_PROMPT_ENVIRONMENT: ' production ' }).defaultPromptEnvironment).toBe('production');
    for (const bad of ['Production', 'prod_1', 'a--b', 'x'.repeat(101)]) {
      const error = configError({ DEFAULT_PROMPT_ENVIRONMENT: bad });
      expect(problemNames(error)).toEqual(['DEFAULT_PROMPT_ENVIRONMENT']);
      expect(error.message).toContain('must be an environment name');
    }
  });

  it('ConfigError is an Error', () => {
    const error = configError({ PORT: 'abc' });
    expect(error).toBeInstanceOf(Error);
  });
});

describe('number settings are plain decimals', () => {
  it('refuses hex, exponent and unit notations', () => {
    for (const value of ['0x50', '1e3', '80px', '8_080', '-1']) {
      expect(() => loadConfig({ PORT: value }), value).toThrow(/PORT/);
    }
    expect(loadConfig({ PORT: ' 8081 ' }).port).toBe(8081);
    expect(() => loadConfig({ MEMORY_WEIGHT_KEYWORD: '1e-1' })).toThrow(/MEMORY_WEIGHT_KEYWORD/);
    expect(loadConfig({ MEMORY_WEIGHT_KEYWORD: '0.25' }).ranking.weights.keyword).toBe(0.25);
  });
});

describe('semantic search settings (EMBEDDINGS_*)', () => {
  it('are off by default: no embeddings, no semantic weight (scores exactly as before)', () => {
    const config = loadConfig({});
    expect(config.embeddings).toBeUndefined();
    expect(config.ranking.weights).not.toHaveProperty('semantic');
  });

  it('read the provider, the limits and the weight when EMBEDDINGS_URL is set', () => {
    const config = loadConfig({
      EMBEDDINGS_URL: ' http://localhost:11434/v1 ',
      EMBEDDINGS_MODEL: 'nomic-embed-text',
      EMBEDDINGS_API_KEY: 'sk-x',
      EMBEDDINGS_BATCH_SIZE: '64',
      EMBEDDINGS_CANDIDATES: '50',
      EMBEDDINGS_MIN_SIMILARITY: '0.55',
      MEMORY_WEIGHT_SEMANTIC: '0.4',
    });
    expect(config.embeddings).toMatchObject({
      url: 'http://localhost:11434/v1',
      model: 'nomic-embed-text',
      apiKey: 'sk-x',
      batchSize: 64,
      timeoutMs: 30_000,
      retries: 3,
      concurrency: 2,
      scanLimit: 20_000,
      search: { candidates: 50, minSimilarity: 0.55, queryTimeoutMs: 2000, retryAfterMs: 30_000 },
    });
    expect(config.ranking.weights.semantic).toBe(0.4);
  });

  it('fail fast on a half-given or malformed setting, naming it', () => {
    expect(() => loadConfig({ EMBEDDINGS_URL: 'http://localhost:11434/v1' })).toThrow(/EMBEDDINGS_MODEL: required/);
    expect(() => loadConfig({ EMBEDDINGS_MODEL: 'm' })).toThrow(/EMBEDDINGS_URL: required/);
    expect(() => loadConfig({ EMBEDDINGS_URL: 'localhost:11434', EMBEDDINGS_MODEL: 'm' })).toThrow(/EMBEDDINGS_URL/);
    expect(() =>
      loadConfig({ EMBEDDINGS_URL: 'http://h/v1', EMBEDDINGS_MODEL: 'm', EMBEDDINGS_MIN_SIMILARITY: '1.5' }),
    ).toThrow(/EMBEDDINGS_MIN_SIMILARITY/);
    expect(() =>
      loadConfig({ EMBEDDINGS_URL: 'http://h/v1', EMBEDDINGS_MODEL: 'm', EMBEDDINGS_BATCH_SIZE: '0' }),
    ).toThrow(/EMBEDDINGS_BATCH_SIZE/);
  });
});
