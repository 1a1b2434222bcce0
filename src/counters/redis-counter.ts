import { Redis } from 'ioredis';
import { batchPerTurn } from '../domain/common/turn-batch.js';
import { type Admitted, type RateWindow, WINDOW_MS, type WindowCounter } from '../domain/limits/rate-limit.js';

interface AdmitRequest {
  key: string;
  limit: number;
  blockKey: string;
  blockLimit: number;
  window: RateWindow;
}

/**
 * Window counters in Redis, shared by every instance. Each operation is one Lua script (atomic, one round
 * trip; the admissions asked for in one turn of the event loop share one script call); keys carry the
 * window's end in their name and expire shortly after it. The TTL is a duration
 * (PEXPIRE) computed from the caller's clock — what is left of the window plus a short grace, never more
 * than one window — so Redis's own clock never decides a window, and no key outlives its window by more
 * than the grace. (An absolute epoch passed to PEXPIRE would be read as a TTL of some 57 years.)
 *
 * When Redis cannot be reached, requests keep being served: counters fail open (a take is granted and
 * counts as 0), `onUnavailable` is told (the caller logs it at most once a minute), and counting resumes
 * as soon as the client has reconnected. Commands fail at once instead of queueing while disconnected.
 */

// The TTL is set only when the script creates the key, so later takes never extend it.
const TRY_TAKE = `
local current = redis.call('GET', KEYS[1])
local count = tonumber(current or '0')
local units = tonumber(ARGV[3])
if count + units > tonumber(ARGV[1]) then return {0, count} end
count = redis.call('INCRBY', KEYS[1], units)
if not current then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {1, count}`;

// ARGV[1] = TTL, ARGV[2..] = one limit per key: one unit on every key, or none on any.
const TRY_TAKE_ALL = `
local counts = {}
for i, key in ipairs(KEYS) do
  counts[i] = tonumber(redis.call('GET', key) or '0')
end
for i = 1, #KEYS do
  if counts[i] + 1 > tonumber(ARGV[i + 1]) then return {0, counts} end
end
for i, key in ipairs(KEYS) do
  counts[i] = redis.call('INCR', key)
  if counts[i] == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
end
return {1, counts}`;

// Never creates a key (it would have no TTL) and never goes below zero; DECRBY keeps the TTL.
const RELEASE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count <= 0 then return 0 end
return redis.call('DECRBY', KEYS[1], math.min(count, tonumber(ARGV[1])))`;

// The admissions of one turn's requests (`admit`, batched): for each, KEYS[2i-1] its count, KEYS[2i] its
// address's failure count; ARGV[3i-2..3i] its limit, TTL and failure limit. In order, each as the one-key
// version would decide it, so two requests of one user in a batch are counted one after the other.
const ADMIT_MANY = `
local results = {}
for i = 1, #KEYS / 2 do
  local key = KEYS[2 * i - 1]
  local limit = tonumber(ARGV[3 * i - 2])
  local blocked = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
  local count = tonumber(redis.call('GET', key) or '0')
  if blocked > 0 and blocked >= tonumber(ARGV[3 * i]) then
    results[3 * i - 2], results[3 * i - 1], results[3 * i] = 1, 0, count
  elseif count >= limit then
    results[3 * i - 2], results[3 * i - 1], results[3 * i] = 0, 0, count
  else
    count = redis.call('INCR', key)
    if count == 1 then redis.call('PEXPIRE', key, ARGV[3 * i - 1]) end
    results[3 * i - 2], results[3 * i - 1], results[3 * i] = 0, 1, count
  end
end
return results`;

const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/** Added after the window's end, so that instances whose clocks differ a little still share a key. */
const EXPIRY_GRACE_MS = 5000;

type Scripted = Redis & {
  cairnTryTake(key: string, limit: number, ttlMs: number, units: number): Promise<[number, number]>;
  cairnTryTakeAll(...args: Array<string | number>): Promise<[number, number[]]>;
  cairnRelease(key: string, units: number): Promise<number>;
  cairnAdmitMany(...args: Array<string | number>): Promise<number[]>;
  cairnIncrement(key: string, ttlMs: number): Promise<number>;
};

export interface RedisCounterOptions {
  url: string;
  /** Prefix for every key, so several installations can share one Redis. */
  prefix?: string;
  onUnavailable: (error: unknown) => void;
}

export function createRedisCounter({ url, prefix = 'cairn:', onUnavailable }: RedisCounterOptions): WindowCounter & {
  ready(): Promise<void>;
} {
  const redis = new Redis(url, {
    keyPrefix: prefix,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    // Keep trying to reconnect, at most every 2 s.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  }) as Scripted;
  redis.on('error', onUnavailable);
  redis.defineCommand('cairnTryTake', { numberOfKeys: 1, lua: TRY_TAKE });
  // The number of keys varies: passed as the first argument.
  redis.defineCommand('cairnTryTakeAll', { lua: TRY_TAKE_ALL });
  redis.defineCommand('cairnRelease', { numberOfKeys: 1, lua: RELEASE });
  redis.defineCommand('cairnAdmitMany', { lua: ADMIT_MANY });
  redis.defineCommand('cairnIncrement', { numberOfKeys: 1, lua: INCREMENT });

  const windowKey = (key: string, window: RateWindow) => `${key}:${window.endsAtMs}`;
  const ttl = (window: RateWindow) => Math.min(WINDOW_MS, window.retryAfterSeconds * 1000 + EXPIRY_GRACE_MS);

  /**
   * The admissions asked for in one turn of the event loop, in one script call (domain/common/turn-batch.ts):
   * every authenticated request asks for one, and a round trip each costs more than the script's work.
   */
  const admitInTurn = batchPerTurn(
    async (asked: AdmitRequest[]): Promise<Admitted[]> => {
      const keys: string[] = [];
      const args: number[] = [];
      for (const { key, limit, blockKey, blockLimit, window } of asked) {
        keys.push(windowKey(key, window), windowKey(blockKey, window));
        args.push(limit, ttl(window), blockLimit);
      }
      const flat = await redis.cairnAdmitMany(keys.length, ...keys, ...args);
      return asked.map((_, i) => ({
        blocked: flat[3 * i] === 1,
        taken: flat[3 * i + 1] === 1,
        count: flat[3 * i + 2] as number,
      }));
    },
    // Two script calls at most at once: more admissions per call under load (turn-batch.ts).
    { maxInFlight: 2 },
  );

  async function failOpen<T>(operation: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      onUnavailable(error);
      return fallback;
    }
  }

  return {
    /** Resolves once connected (start-up waits for it so the first requests are counted). */
    ready: () =>
      new Promise<void>((resolve) => {
        if (redis.status === 'ready') return resolve();
        const done = () => resolve();
        redis.once('ready', done);
        // Do not hold start-up hostage: serve (failing open) if Redis is not there within 3 s.
        setTimeout(done, 3000).unref();
      }),

    tryTake: (key, limit, window, units = 1) =>
      failOpen(
        async () => {
          const [taken, count] = await redis.cairnTryTake(windowKey(key, window), limit, ttl(window), units);
          return { taken: taken === 1, count };
        },
        { taken: true, count: 0 },
      ),

    tryTakeAll: (takes, window) =>
      failOpen(
        async () => {
          const [taken, counts] = await redis.cairnTryTakeAll(
            takes.length,
            ...takes.map((take) => windowKey(take.key, window)),
            ttl(window),
            ...takes.map((take) => take.limit),
          );
          return { taken: taken === 1, counts };
        },
        { taken: true, counts: takes.map(() => 0) },
      ),

    release: (key, window, units = 1) =>
      failOpen(async () => {
        await redis.cairnRelease(windowKey(key, window), units);
      }, undefined),

    admit: (key, limit, blockKey, blockLimit, window) =>
      failOpen(() => admitInTurn({ key, limit, blockKey, blockLimit, window }), {
        blocked: false,
        taken: true,
        count: 0,
      }),

    increment: (key, window) => failOpen(() => redis.cairnIncrement(windowKey(key, window), ttl(window)), 0),

    peek: (key, window) => failOpen(async () => Number((await redis.get(windowKey(key, window))) ?? 0), 0),

    async close() {
      redis.disconnect();
    },
  };
}
