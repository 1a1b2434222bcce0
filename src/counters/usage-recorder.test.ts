import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UsageIncrement } from '../domain/accounts/account-store.js';
import { createUsageRecorder, type UsageRecorder, type UsageRecorderOptions } from './usage-recorder.js';

const HOUR = 3_600_000;
const H10 = Date.UTC(2026, 10, 21, 10, 0, 0);
const H11 = H10 + HOUR;
const t = (ms: number) => new Date(ms);
const iso = (ms: number) => new Date(ms).toISOString();

/** Sorted by key then hour, so that assertions don't depend on the batch order. */
const sorted = (batch: readonly UsageIncrement[]) =>
  [...batch].sort((a, b) => a.keyId.localeCompare(b.keyId) || a.hourStartMs - b.hourStartMs);

function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Waits until `condition` holds (e.g. until persist has taken its batch). */
const until = (condition: () => boolean) =>
  vi.waitFor(
    () => {
      if (!condition()) throw new Error('not yet');
    },
    { timeout: 2_000, interval: 1 },
  );

const recorders: UsageRecorder[] = [];

/**
 * A recorder whose persist is a spy. The interval is long by default so that only explicit flushes
 * persist (deterministic); the timer tests pass a short one.
 */
function setup(overrides: Partial<UsageRecorderOptions> = {}) {
  const batches: UsageIncrement[][] = [];
  const persist = vi.fn(async (increments: UsageIncrement[]) => {
    // Copy: the recorder must not hand out objects it later mutates.
    batches.push(increments.map((inc) => ({ ...inc })));
  });
  const onError = vi.fn();
  const recorder = createUsageRecorder({ persist, intervalMs: 60_000, onError, ...overrides });
  recorders.push(recorder);
  return { recorder, persist, onError, batches };
}

afterEach(async () => {
  // Always close (stops the timer); a persist that is set to fail may make the final flush throw.
  await Promise.all(recorders.splice(0).map((r) => r.close().catch(() => undefined)));
});

describe('createUsageRecorder', () => {
  it('merges records per key and UTC hour, keeping the latest use', async () => {
    const { recorder, persist, batches } = setup();
    recorder.record('key_a', 'usr_1', t(H10 + 1_000));
    recorder.record('key_a', 'usr_1', t(H10 + 30 * 60_000));
    recorder.record('key_a', 'usr_1', t(H10 + 10 * 60_000)); // out of order: must not lower lastUsedAt
    recorder.record('key_a', 'usr_1', t(H11 + 5 * 60_000));
    recorder.record('key_b', 'usr_2', t(H10 + 59 * 60_000 + 59_999));

    await recorder.flush();

    expect(persist).toHaveBeenCalledTimes(1);
    expect(sorted(batches[0] ?? [])).toEqual([
      { keyId: 'key_a', userId: 'usr_1', hourStartMs: H10, count: 3, lastUsedAt: iso(H10 + 30 * 60_000) },
      { keyId: 'key_a', userId: 'usr_1', hourStartMs: H11, count: 1, lastUsedAt: iso(H11 + 5 * 60_000) },
      { keyId: 'key_b', userId: 'usr_2', hourStartMs: H10, count: 1, lastUsedAt: iso(H10 + HOUR - 1) },
    ]);
  });

  it('puts a request at exactly the top of the hour into the new hour', async () => {
    const { recorder, batches } = setup();
    recorder.record('key_a', 'usr_1', t(H11 - 1));
    recorder.record('key_a', 'usr_1', t(H11));
    await recorder.flush();
    expect(sorted(batches[0] ?? []).map((inc) => [inc.hourStartMs, inc.count])).toEqual([
      [H10, 1],
      [H11, 1],
    ]);
  });

  it('pending() reflects unflushed figures per key, across hours', async () => {
    const { recorder } = setup();
    expect(recorder.pending('key_a')).toBeUndefined();
    recorder.record('key_a', 'usr_1', t(H10 + 1_000));
    expect(recorder.pending('key_a')).toEqual({ count: 1, lastUsedAt: iso(H10 + 1_000) });
    recorder.record('key_a', 'usr_1', t(H11 + 2_000));
    recorder.record('key_a', 'usr_1', t(H10 + 3_000));
    recorder.record('key_b', 'usr_1', t(H11 + 9_000));
    expect(recorder.pending('key_a')).toEqual({ count: 3, lastUsedAt: iso(H11 + 2_000) });
    expect(recorder.pending('key_b')).toEqual({ count: 1, lastUsedAt: iso(H11 + 9_000) });
    expect(recorder.pending('key_unknown')).toBeUndefined();
  });

  it('pending() is empty after a successful flush', async () => {
    const { recorder } = setup();
    recorder.record('key_a', 'usr_1', t(H10));
    await recorder.flush();
    expect(recorder.pending('key_a')).toBeUndefined();
  });

  it('flush persists once with the merged increments, and only new figures next time', async () => {
    const { recorder, persist, batches } = setup();
    for (let i = 0; i < 50; i++) recorder.record('key_a', 'usr_1', t(H10 + i));
    await recorder.flush();
    expect(persist).toHaveBeenCalledTimes(1);
    expect(batches[0]).toEqual([
      { keyId: 'key_a', userId: 'usr_1', hourStartMs: H10, count: 50, lastUsedAt: iso(H10 + 49) },
    ]);

    recorder.record('key_a', 'usr_1', t(H10 + 100));
    await recorder.flush();
    expect(persist).toHaveBeenCalledTimes(2);
    expect(batches[1]).toEqual([
      { keyId: 'key_a', userId: 'usr_1', hourStartMs: H10, count: 1, lastUsedAt: iso(H10 + 100) },
    ]);
  });

  it('flush with nothing buffered does not call persist', async () => {
    const { recorder, persist } = setup();
    await recorder.flush();
    await recorder.flush();
    expect(persist).not.toHaveBeenCalled();
  });

  it('a failing persist keeps the figures; a later flush sends them merged with new ones', async () => {
    const { recorder, persist, batches, onError } = setup();
    persist.mockRejectedValueOnce(new Error('database down'));

    recorder.record('key_a', 'usr_1', t(H10 + 1_000));
    recorder.record('key_a', 'usr_1', t(H10 + 2_000));
    await expect(recorder.flush()).rejects.toThrow('database down');
    expect(persist).toHaveBeenCalledTimes(1);
    expect(recorder.pending('key_a')).toEqual({ count: 2, lastUsedAt: iso(H10 + 2_000) });

    recorder.record('key_a', 'usr_1', t(H10 + 3_000));
    recorder.record('key_b', 'usr_2', t(H11));
    expect(recorder.pending('key_a')).toEqual({ count: 3, lastUsedAt: iso(H10 + 3_000) });

    await recorder.flush();
    expect(persist).toHaveBeenCalledTimes(2);
    expect(sorted(batches[0] ?? [])).toEqual([
      { keyId: 'key_a', userId: 'usr_1', hourStartMs: H10, count: 3, lastUsedAt: iso(H10 + 3_000) },
      { keyId: 'key_b', userId: 'usr_2', hourStartMs: H11, count: 1, lastUsedAt: iso(H11) },
    ]);
    expect(recorder.pending('key_a')).toBeUndefined();
    // A manual flush reports its failure to the caller, not to onError.
    expect(onError).not.toHaveBeenCalled();
  });

  it('a failed flush leaves no unhandled rejection behind (it would terminate the process)', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const { recorder, persist } = setup();
      persist.mockRejectedValueOnce(new Error('database down'));
      recorder.record('key_a', 'usr_1', t(H10));
      await expect(recorder.flush()).rejects.toThrow('database down');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  it('records made while a failing persist is in flight are kept together with the failed batch', async () => {
    const { recorder, persist, batches } = setup();
    const gate = deferred();
    persist.mockImplementationOnce(() => gate.promise);

    recorder.record('key_a', 'usr_1', t(H10 + 1_000));
    const first = recorder.flush();
    await until(() => persist.mock.calls.length === 1); // the flush has taken the batch
    expect(recorder.pending('key_a')).toBeUndefined();
    recorder.record('key_a', 'usr_1', t(H10 + 5_000));
    gate.reject(new Error('timeout'));
    await expect(first).rejects.toThrow('timeout');

    expect(recorder.pending('key_a')).toEqual({ count: 2, lastUsedAt: iso(H10 + 5_000) });
    await recorder.flush();
    expect(batches).toEqual([
      [{ keyId: 'key_a', userId: 'usr_1', hourStartMs: H10, count: 2, lastUsedAt: iso(H10 + 5_000) }],
    ]);
  });

  it('survives repeated failures without losing or duplicating counts', async () => {
    const { recorder, persist, batches } = setup();
    persist.mockRejectedValueOnce(new Error('1')).mockRejectedValueOnce(new Error('2'));
    recorder.record('key_a', 'usr_1', t(H10));
    await expect(recorder.flush()).rejects.toThrow('1');
    recorder.record('key_a', 'usr_1', t(H10 + 1));
    await expect(recorder.flush()).rejects.toThrow('2');
    recorder.record('key_a', 'usr_1', t(H10 + 2));
    await recorder.flush();
    expect(batches).toEqual([
      [{ keyId: 'key_a', userId: 'usr_1', hourStartMs: H10, count: 3, lastUsedAt: iso(H10 + 2) }],
    ]);
  });

  it('never runs two persists at once; a flush called during one sends what came since', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const gates = [deferred(), deferred()];
    const batches: UsageIncrement[][] = [];
    const { recorder, persist } = setup({
      persist: async (increments) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        batches.push(increments.map((inc) => ({ ...inc })));
        await gates[batches.length - 1]?.promise;
        inFlight -= 1;
      },
    });
    expect(persist).not.toHaveBeenCalled(); // the spy is replaced by the override

    recorder.record('key_a', 'usr_1', t(H10 + 1));
    const first = recorder.flush();
    await until(() => batches.length === 1);
    recorder.record('key_a', 'usr_1', t(H10 + 2));
    const second = recorder.flush();
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(batches).toHaveLength(1);

    gates[0]?.resolve();
    await first;
    gates[1]?.resolve();
    await second;

    expect(maxInFlight).toBe(1);
    expect(batches.map((b) => b.map((inc) => [inc.count, inc.lastUsedAt]))).toEqual([
      [[1, iso(H10 + 1)]],
      [[1, iso(H10 + 2)]],
    ]);
  });

  it('a flush after a failed one still waits its turn and succeeds', async () => {
    const { recorder, persist, batches } = setup();
    const gate = deferred();
    persist.mockImplementationOnce(() => gate.promise);
    recorder.record('key_a', 'usr_1', t(H10));
    const failing = recorder.flush();
    const next = recorder.flush();
    gate.reject(new Error('boom'));
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBeUndefined();
    expect(batches).toEqual([[{ keyId: 'key_a', userId: 'usr_1', hourStartMs: H10, count: 1, lastUsedAt: iso(H10) }]]);
  });

  it('close() flushes what is left', async () => {
    const { recorder, persist, batches } = setup();
    recorder.record('key_a', 'usr_1', t(H10));
    recorder.record('key_a', 'usr_1', t(H10 + 1));
    await recorder.close();
    expect(persist).toHaveBeenCalledTimes(1);
    expect(batches[0]).toEqual([
      { keyId: 'key_a', userId: 'usr_1', hourStartMs: H10, count: 2, lastUsedAt: iso(H10 + 1) },
    ]);
    expect(recorder.pending('key_a')).toBeUndefined();
  });

  it('close() waits for a flush in progress and then flushes the rest', async () => {
    const { recorder, persist, batches } = setup();
    const gate = deferred();
    persist.mockImplementationOnce(async (increments) => {
      batches.push(increments.map((inc) => ({ ...inc })));
      await gate.promise;
    });
    recorder.record('key_a', 'usr_1', t(H10));
    const flushing = recorder.flush();
    await until(() => batches.length === 1);
    recorder.record('key_b', 'usr_1', t(H10));
    const closing = recorder.close();
    gate.resolve();
    await flushing;
    await closing;
    expect(batches.map((b) => b.map((inc) => inc.keyId))).toEqual([['key_a'], ['key_b']]);
  });

  it('persists on its timer without an explicit flush', async () => {
    const { recorder, persist, batches, onError } = setup({ intervalMs: 10 });
    recorder.record('key_a', 'usr_1', t(H10));
    await vi.waitFor(() => expect(persist).toHaveBeenCalledTimes(1), { timeout: 2_000, interval: 5 });
    expect(batches[0]).toEqual([{ keyId: 'key_a', userId: 'usr_1', hourStartMs: H10, count: 1, lastUsedAt: iso(H10) }]);
    expect(recorder.pending('key_a')).toBeUndefined();
    expect(onError).not.toHaveBeenCalled();
  });

  it('reports a failing timer flush to onError, keeps the figures and retries on the next tick', async () => {
    const { recorder, persist, batches, onError } = setup({ intervalMs: 10 });
    const failure = new Error('database down');
    persist.mockRejectedValueOnce(failure);
    recorder.record('key_a', 'usr_1', t(H10));
    recorder.record('key_a', 'usr_1', t(H10 + 1));
    await vi.waitFor(() => expect(onError).toHaveBeenCalledWith(failure), { timeout: 2_000, interval: 5 });
    await vi.waitFor(() => expect(batches).toHaveLength(1), { timeout: 2_000, interval: 5 });
    expect(batches[0]).toEqual([
      { keyId: 'key_a', userId: 'usr_1', hourStartMs: H10, count: 2, lastUsedAt: iso(H10 + 1) },
    ]);
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('stops the timer on close()', async () => {
    const { recorder, persist } = setup({ intervalMs: 10 });
    await recorder.close();
    recorder.record('key_a', 'usr_1', t(H10));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(persist).not.toHaveBeenCalled();
    expect(recorder.pending('key_a')).toEqual({ count: 1, lastUsedAt: iso(H10) });
  });
});
