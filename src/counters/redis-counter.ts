import { Redis } from 'ioredis';
import type { RateWindow, WindowCounter } from '../domain/limits/rate-limit.js';

/**
 * Window counters in Redis, shared by every instance. Each operation is one Lua script (atomic, one round
 * trip); keys carry the window's end in their name and expire shortly after it (a TTL from the caller's
 * clock, so Redis's own clock never decides a window).
 *
 * When Redis cannot be reached, requests keep being served: counters fail open (a take is granted and
 * counts as 0), `onUnavailable` is told (the caller logs it at most once a minute), and counting resumes
 * as soon as the client has reconnected. Commands fail at once instead of queueing while disconnected.
 */
const TRY_TAKE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then return {0, count} end
count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {1, count}`;

const ADMIT = `
local blocked = tonumber(redis.call('GET', KEYS[2]) or '0')
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if blocked >= tonumber(ARGV[3]) then return {1, 0, count} end
if count >= tonumber(ARGV[1]) then return {0, 0, count} end
count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {0, 1, count}`;

const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

type Scripted = Redis & {
  cairnTryTake(key: string, limit: number, expireAtMs: number): Promise<[number, number]>;
  cairnAdmit(
    key: string,
    blockKey: string,
    limit: number,
    expireAtMs: number,
    blockLimit: number,
  ): Promise<[number, number, number]>;
  cairnIncrement(key: string, expireAtMs: number): Promise<number>;
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
  redis.defineCommand('cairnAdmit', { numberOfKeys: 2, lua: ADMIT });
  redis.defineCommand('cairnIncrement', { numberOfKeys: 1, lua: INCREMENT });

  const windowKey = (key: string, window: RateWindow) => `${key}:${window.endsAtMs}`;
  const ttl = (window: RateWindow) => window.retryAfterSeconds * 1000 + 5000;

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

    tryTake: (key, limit, window) =>
      failOpen(
        async () => {
          const [taken, count] = await redis.cairnTryTake(windowKey(key, window), limit, ttl(window));
          return { taken: taken === 1, count };
        },
        { taken: true, count: 0 },
      ),

    admit: (key, limit, blockKey, blockLimit, window) =>
      failOpen(
        async () => {
          const [blocked, taken, count] = await redis.cairnAdmit(
            windowKey(key, window),
            windowKey(blockKey, window),
            limit,
            window.endsAtMs,
            blockLimit,
          );
          return { blocked: blocked === 1, taken: taken === 1, count };
        },
        { blocked: false, taken: true, count: 0 },
      ),

    increment: (key, window) => failOpen(() => redis.cairnIncrement(windowKey(key, window), ttl(window)), 0),

    peek: (key, window) => failOpen(async () => Number((await redis.get(windowKey(key, window))) ?? 0), 0),

    async close() {
      redis.disconnect();
    },
  };
}
