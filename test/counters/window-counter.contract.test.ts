import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryCounter } from '../../src/counters/memory-counter.js';
import { createRedisCounter } from '../../src/counters/redis-counter.js';
import { currentWindow, WINDOW_MS, type WindowCounter } from '../../src/domain/limits/rate-limit.js';
import { manualClock } from '../helpers/app.js';
import { COUNTERS, type CounterKind, counterEnv } from '../helpers/databases.js';

/**
 * The one contract every `WindowCounter` keeps, run over the in-process counter and (with TEST_REDIS_URL)
 * the Redis one. Windows come from an injected clock: nothing here waits on wall time.
 */
interface Subject {
  counter: WindowCounter;
  /** The Redis key of `key` in `window`, for TTL checks; undefined for the in-process counter. */
  redisKey?: (key: string, endsAtMs: number) => string;
}

const redisUrl = process.env.TEST_REDIS_URL;
/** Failures a reachable Redis must never report (a silent fail-open would make every count pass as 0). */
const unavailable: unknown[] = [];

function open(kind: CounterKind): Subject {
  if (kind === 'memory') return { counter: createMemoryCounter() };
  const { REDIS_KEY_PREFIX: prefix } = counterEnv(kind) as { REDIS_KEY_PREFIX: string };
  const counter = createRedisCounter({
    url: redisUrl as string,
    prefix,
    onUnavailable: (error) => unavailable.push(error),
  });
  return { counter, redisKey: (key, endsAtMs) => `${prefix}${key}:${endsAtMs}` };
}

// Announces the skip of the Redis variant when TEST_REDIS_URL is not set.
counterEnv('memory');

describe.each(COUNTERS)('WindowCounter contract (%s)', (kind) => {
  let subject: Subject;
  let counter: WindowCounter;
  let inspector: Redis | undefined;

  beforeAll(async () => {
    if (kind === 'redis') inspector = new Redis(redisUrl as string);
  });
  afterAll(() => inspector?.disconnect());
  afterEach(async () => {
    await counter?.close();
    expect(unavailable).toEqual([]);
  });

  const fresh = async () => {
    subject = open(kind);
    counter = subject.counter;
    if ('ready' in counter) await (counter as { ready(): Promise<void> }).ready();
    return counter;
  };
  const key = (name: string) => `${name}:${randomBytes(4).toString('hex')}`;

  it('tryTake grants exactly the limit, and a refused take consumes nothing', async () => {
    const c = await fresh();
    const window = currentWindow(manualClock('2026-11-21T10:15:00.000Z').now());
    const k = key('user');
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await c.tryTake(k, 3, window));
    expect(results.map((r) => r.taken)).toEqual([true, true, true, false, false]);
    expect(results.map((r) => r.count)).toEqual([1, 2, 3, 3, 3]);
    expect(await c.peek(k, window)).toBe(3);
    expect(await c.tryTake(key('zero'), 0, window)).toEqual({ taken: false, count: 0 });
  });

  it('counts start again at zero at the window boundary (injected clock)', async () => {
    const c = await fresh();
    const clock = manualClock('2026-11-21T10:59:59.999Z');
    const k = key('boundary');
    const last = currentWindow(clock.now());
    for (let i = 0; i < 4; i++) await c.tryTake(k, 4, last);
    expect((await c.tryTake(k, 4, last)).taken).toBe(false);
    clock.advance(1); // 11:00:00.000, the first millisecond of the next window
    const next = currentWindow(clock.now());
    expect(next.endsAtMs).toBe(last.endsAtMs + WINDOW_MS);
    expect(await c.peek(k, next)).toBe(0);
    expect(await c.tryTake(k, 4, next)).toEqual({ taken: true, count: 1 });
  });

  it('200 parallel tryTake with limit 37 grant exactly 37, each with its own count', async () => {
    const c = await fresh();
    const window = currentWindow(manualClock('2026-11-21T10:30:00.000Z').now());
    const k = key('busy');
    const results = await Promise.all(Array.from({ length: 200 }, () => c.tryTake(k, 37, window)));
    const granted = results.filter((r) => r.taken);
    expect(granted).toHaveLength(37);
    expect(granted.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 37 }, (_, i) => i + 1));
    expect(await c.peek(k, window)).toBe(37);
  });

  it('reserves n units all or none, exactly under concurrency', async () => {
    const c = await fresh();
    const window = currentWindow(manualClock('2026-11-21T10:30:00.000Z').now());
    const k = key('units');
    expect(await c.tryTake(k, 10, window, 7)).toEqual({ taken: true, count: 7 });
    expect(await c.tryTake(k, 10, window, 4)).toEqual({ taken: false, count: 7 });
    expect(await c.tryTake(k, 10, window, 3)).toEqual({ taken: true, count: 10 });
    // 60 parallel reservations of 5 units against 100: exactly 20 fit.
    const burst = key('burst');
    const results = await Promise.all(Array.from({ length: 60 }, () => c.tryTake(burst, 100, window, 5)));
    expect(results.filter((r) => r.taken)).toHaveLength(20);
    expect(await c.peek(burst, window)).toBe(100);
  });

  it('tryTakeAll takes one unit on every key or on none, exactly under concurrency', async () => {
    const c = await fresh();
    const window = currentWindow(manualClock('2026-11-21T10:30:00.000Z').now());
    const account = key('account');
    const address = key('address');
    const takes = [
      { key: account, limit: 10 },
      { key: address, limit: 50 },
    ];
    const results = await Promise.all(Array.from({ length: 30 }, () => c.tryTakeAll(takes, window)));
    expect(results.filter((r) => r.taken)).toHaveLength(10);
    // The refusals by the account's limit consumed none of the address's budget.
    expect(await c.peek(account, window)).toBe(10);
    expect(await c.peek(address, window)).toBe(10);
    const refused = results.find((r) => !r.taken);
    expect(refused?.counts).toEqual([10, 10]);
    // Another account from the same address still gets through; the address's count moves with it.
    expect(await c.tryTakeAll([{ key: key('other'), limit: 10 }, takes[1] as never], window)).toEqual({
      taken: true,
      counts: [1, 11],
    });
  });

  it('release gives units back, never below zero, and only in its own window', async () => {
    const c = await fresh();
    const clock = manualClock('2026-11-21T10:30:00.000Z');
    const window = currentWindow(clock.now());
    const k = key('refund');
    await c.tryTake(k, 3, window, 3);
    expect((await c.tryTake(k, 3, window)).taken).toBe(false);
    await c.release(k, window);
    expect(await c.tryTake(k, 3, window)).toEqual({ taken: true, count: 3 });
    await c.release(k, window, 10);
    expect(await c.peek(k, window)).toBe(0);
    await c.release(key('never-taken'), window);
    expect(await c.peek(key('never-taken'), window)).toBe(0);
    clock.advance(WINDOW_MS);
    await c.release(k, currentWindow(clock.now()));
    expect(await c.peek(k, currentWindow(clock.now()))).toBe(0);
  });

  it('admit refuses a blocked address and otherwise takes like tryTake; increment counts unconditionally', async () => {
    const c = await fresh();
    const window = currentWindow(manualClock('2026-11-21T10:30:00.000Z').now());
    const user = key('rate');
    const ip = key('authfail');
    expect(await c.admit(user, 2, ip, 2, window)).toEqual({ blocked: false, taken: true, count: 1 });
    expect(await c.increment(ip, window)).toBe(1);
    expect(await c.admit(user, 2, ip, 2, window)).toEqual({ blocked: false, taken: true, count: 2 });
    expect(await c.admit(user, 2, ip, 2, window)).toEqual({ blocked: false, taken: false, count: 2 });
    expect(await c.increment(ip, window)).toBe(2);
    expect((await c.admit(key('rate'), 2, ip, 2, window)).blocked).toBe(true);
  });

  it('decides admissions asked together (one turn, one script call in Redis) as one after the other, in order (property)', async () => {
    const c = await fresh();
    const clock = manualClock('2026-11-21T10:59:59.000Z');
    const windows = [currentWindow(clock.now()), currentWindow(new Date(clock.now().getTime() + WINDOW_MS))];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            user: fc.integer({ min: 0, max: 2 }),
            address: fc.integer({ min: 0, max: 1 }),
            limit: fc.integer({ min: 0, max: 4 }),
            blockLimit: fc.integer({ min: 0, max: 3 }),
            window: fc.integer({ min: 0, max: 1 }),
            failure: fc.boolean(),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        async (asked) => {
          const users = [key('u0'), key('u1'), key('u2')];
          const addresses = [key('a0'), key('a1')];
          // The model: counts per key and window, decided in the order asked.
          const model = new Map<string, number>();
          const get = (k: string, w: number) => model.get(`${k}|${w}`) ?? 0;
          // Window by window (they only move forward in one process: the in-process counter keeps a key's
          // latest window): its failures first (increments of the addresses), then its admissions all in
          // one turn.
          for (const w of [0, 1]) {
            const inWindow = asked.filter((a) => a.window === w);
            const window = windows[w] as (typeof windows)[number];
            for (const a of inWindow.filter((x) => x.failure)) {
              const address = addresses[a.address] as string;
              await c.increment(address, window);
              model.set(`${address}|${w}`, get(address, w) + 1);
            }
            const expected = inWindow.map((a) => {
              const user = users[a.user] as string;
              const count = get(user, w);
              const failures = get(addresses[a.address] as string, w);
              if (failures > 0 && failures >= a.blockLimit) return { blocked: true, taken: false, count };
              if (count >= a.limit) return { blocked: false, taken: false, count };
              model.set(`${user}|${w}`, count + 1);
              return { blocked: false, taken: true, count: count + 1 };
            });
            const answers = await Promise.all(
              inWindow.map((a) =>
                c.admit(users[a.user] as string, a.limit, addresses[a.address] as string, a.blockLimit, window),
              ),
            );
            expect(answers).toEqual(expected);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  // Only counters held in this process answer at once: registered for those alone.
  if (kind === 'memory')
    it('admitNow answers at once what admit answers: blocked address, takes up to the limit, window by window', async () => {
      const c = await fresh();
      const admitNow = c.admitNow?.bind(c) as NonNullable<WindowCounter['admitNow']>;
      expect(admitNow).toBeTypeOf('function');
      const clock = manualClock('2026-11-21T10:30:00.000Z');
      const window = currentWindow(clock.now());
      const user = key('rate');
      const ip = key('authfail');
      expect(admitNow(user, 2, ip, 2, window)).toEqual({ blocked: false, taken: true, count: 1 });
      expect(await c.increment(ip, window)).toBe(1);
      expect(await c.admit(user, 2, ip, 2, window)).toEqual({ blocked: false, taken: true, count: 2 });
      expect(admitNow(user, 2, ip, 2, window)).toEqual({ blocked: false, taken: false, count: 2 });
      expect(await c.increment(ip, window)).toBe(2);
      expect(admitNow(user, 2, ip, 2, window)).toEqual({ blocked: true, taken: false, count: 2 });
      expect(await c.peek(user, window)).toBe(2);
      clock.advance(WINDOW_MS);
      const next = currentWindow(clock.now());
      expect(admitNow(user, 2, ip, 2, next)).toEqual({ blocked: false, taken: true, count: 1 });
    });

  // Only the Redis implementation has keys to inspect: registered for that variant alone (not skipped in the other).
  if (kind === 'redis')
    it('Redis keys live at most one window (PEXPIRE gets a duration, not an epoch)', async () => {
      const c = await fresh();
      const redisKey = subject.redisKey as NonNullable<Subject['redisKey']>;
      const redis = inspector as Redis;
      // A window whose end is 10 minutes away on the injected clock, and one that has just begun.
      for (const [at, remainingMs] of [
        ['2026-11-21T10:50:00.000Z', 600_000],
        ['2026-11-21T11:00:00.000Z', WINDOW_MS],
      ] as const) {
        const window = currentWindow(new Date(at));
        const keys = { take: key('ttl-take'), all: key('ttl-all'), admit: key('ttl-admit'), inc: key('ttl-inc') };
        await c.tryTake(keys.take, 5, window, 2);
        await c.tryTakeAll([{ key: keys.all, limit: 5 }], window);
        await c.admit(keys.admit, 5, key('ttl-block'), 5, window);
        await c.increment(keys.inc, window);
        for (const k of Object.values(keys)) {
          const pttl = await redis.pttl(redisKey(k, window.endsAtMs));
          expect(pttl, k).toBeGreaterThan(0);
          expect(pttl, k).toBeLessThanOrEqual(WINDOW_MS);
          expect(pttl, k).toBeLessThanOrEqual(remainingMs + 5000);
        }
        // Later takes and releases keep the first TTL instead of extending it.
        const before = await redis.pttl(redisKey(keys.take, window.endsAtMs));
        await c.tryTake(keys.take, 5, window);
        await c.release(keys.take, window);
        expect(await redis.pttl(redisKey(keys.take, window.endsAtMs))).toBeLessThanOrEqual(before);
      }
    });
});

describe('Redis counter fails open when Redis is unreachable', () => {
  it('grants every take, counts 0, and reports the failure', async () => {
    const failures: unknown[] = [];
    // Port 1 on loopback: nothing listens there, so every command fails at once (no offline queue).
    const counter = createRedisCounter({
      url: 'redis://127.0.0.1:1',
      prefix: `cairn-test-${randomBytes(4).toString('hex')}:`,
      onUnavailable: (error) => failures.push(error),
    });
    try {
      const window = currentWindow(manualClock('2026-11-21T10:30:00.000Z').now());
      const takes = await Promise.all(Array.from({ length: 20 }, () => counter.tryTake('k', 1, window)));
      expect(takes.every((r) => r.taken && r.count === 0)).toBe(true);
      expect(await counter.tryTake('k', 1, window, 5)).toEqual({ taken: true, count: 0 });
      expect(
        await counter.tryTakeAll(
          [
            { key: 'a', limit: 1 },
            { key: 'b', limit: 1 },
          ],
          window,
        ),
      ).toEqual({
        taken: true,
        counts: [0, 0],
      });
      expect(await counter.admit('k', 1, 'ip', 1, window)).toEqual({ blocked: false, taken: true, count: 0 });
      await expect(counter.release('k', window)).resolves.toBeUndefined();
      expect(await counter.increment('ip', window)).toBe(0);
      expect(await counter.peek('k', window)).toBe(0);
      expect(failures.length).toBeGreaterThan(0);
    } finally {
      await counter.close();
    }
  });
});
