import { afterEach, describe, expect, it } from 'vitest';
import { currentWindow, WINDOW_MS, type WindowCounter } from '../domain/limits/rate-limit.js';
import { createMemoryCounter } from './memory-counter.js';

const HOUR_10 = Date.UTC(2026, 10, 21, 10, 0, 0);
const at = (ms: number) => currentWindow(new Date(ms));

describe('createMemoryCounter', () => {
  let counter: WindowCounter;

  afterEach(async () => {
    await counter?.close();
  });

  it('tryTake admits exactly `limit` takes, then refuses without consuming', async () => {
    counter = createMemoryCounter();
    const window = at(HOUR_10 + 5_000);
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await counter.tryTake('user:1', 3, window));
    expect(results).toEqual([
      { taken: true, count: 1 },
      { taken: true, count: 2 },
      { taken: true, count: 3 },
      { taken: false, count: 3 },
      { taken: false, count: 3 },
    ]);
    expect(await counter.peek('user:1', window)).toBe(3);
  });

  it('a limit of zero admits nothing', async () => {
    counter = createMemoryCounter();
    const window = at(HOUR_10);
    expect(await counter.tryTake('k', 0, window)).toEqual({ taken: false, count: 0 });
    expect(await counter.peek('k', window)).toBe(0);
  });

  it('a higher limit admits more on the same count (operator raised the limit)', async () => {
    counter = createMemoryCounter();
    const window = at(HOUR_10);
    for (let i = 0; i < 2; i++) await counter.tryTake('k', 2, window);
    expect(await counter.tryTake('k', 2, window)).toEqual({ taken: false, count: 2 });
    expect(await counter.tryTake('k', 5, window)).toEqual({ taken: true, count: 3 });
  });

  it('counts keys independently', async () => {
    counter = createMemoryCounter();
    const window = at(HOUR_10);
    await counter.tryTake('a', 10, window);
    await counter.tryTake('a', 10, window);
    await counter.tryTake('b', 10, window);
    expect(await counter.peek('a', window)).toBe(2);
    expect(await counter.peek('b', window)).toBe(1);
    expect(await counter.peek('c', window)).toBe(0);
  });

  it('a new window starts from zero', async () => {
    counter = createMemoryCounter();
    const first = at(HOUR_10 + 59 * 60_000);
    for (let i = 0; i < 3; i++) await counter.tryTake('user:1', 3, first);
    expect(await counter.tryTake('user:1', 3, first)).toEqual({ taken: false, count: 3 });

    const second = at(HOUR_10 + WINDOW_MS);
    expect(second.endsAtMs).toBe(first.endsAtMs + WINDOW_MS);
    expect(await counter.peek('user:1', second)).toBe(0);
    expect(await counter.tryTake('user:1', 3, second)).toEqual({ taken: true, count: 1 });
    expect(await counter.peek('user:1', second)).toBe(1);
  });

  it('times within the same hour share one window', async () => {
    counter = createMemoryCounter();
    await counter.tryTake('k', 10, at(HOUR_10));
    await counter.tryTake('k', 10, at(HOUR_10 + 30 * 60_000));
    expect(await counter.peek('k', at(HOUR_10 + WINDOW_MS - 1))).toBe(2);
  });

  it('peek does not change counts', async () => {
    counter = createMemoryCounter();
    const window = at(HOUR_10);
    expect(await counter.peek('k', window)).toBe(0);
    expect(await counter.peek('k', window)).toBe(0);
    await counter.tryTake('k', 2, window);
    for (let i = 0; i < 10; i++) expect(await counter.peek('k', window)).toBe(1);
    expect(await counter.tryTake('k', 2, window)).toEqual({ taken: true, count: 2 });
    expect(await counter.tryTake('k', 2, window)).toEqual({ taken: false, count: 2 });
  });

  it('increment counts unconditionally and feeds the same count as tryTake', async () => {
    counter = createMemoryCounter();
    const window = at(HOUR_10);
    expect(await counter.increment('ip:1', window)).toBe(1);
    expect(await counter.increment('ip:1', window)).toBe(2);
    expect(await counter.tryTake('ip:1', 3, window)).toEqual({ taken: true, count: 3 });
    expect(await counter.increment('ip:1', window)).toBe(4);
    expect(await counter.tryTake('ip:1', 3, window)).toEqual({ taken: false, count: 4 });
    expect(await counter.peek('ip:1', window)).toBe(4);
  });

  it('1,000 concurrent tryTake calls with limit 137 admit exactly 137', async () => {
    counter = createMemoryCounter();
    const window = at(HOUR_10);
    const results = await Promise.all(Array.from({ length: 1000 }, () => counter.tryTake('user:busy', 137, window)));
    const taken = results.filter((r) => r.taken);
    expect(taken).toHaveLength(137);
    expect(results.filter((r) => !r.taken)).toHaveLength(863);
    // Each admitted take got its own count, 1..137.
    expect(taken.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 137 }, (_, i) => i + 1));
    for (const r of results) if (!r.taken) expect(r.count).toBe(137);
    expect(await counter.peek('user:busy', window)).toBe(137);
  });

  it('concurrent takes on different keys do not interfere', async () => {
    counter = createMemoryCounter();
    const window = at(HOUR_10);
    const calls = Array.from({ length: 600 }, (_, i) => counter.tryTake(`user:${i % 3}`, 50, window));
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.taken)).toHaveLength(150);
    for (const key of ['user:0', 'user:1', 'user:2']) expect(await counter.peek(key, window)).toBe(50);
  });

  it('close() forgets all counts', async () => {
    counter = createMemoryCounter();
    const window = at(HOUR_10);
    await counter.tryTake('k', 5, window);
    await counter.close();
    expect(await counter.peek('k', window)).toBe(0);
  });
});
