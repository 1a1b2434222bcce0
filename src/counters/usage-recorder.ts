import type { UsageSink } from '../domain/accounts/access-gate.js';
import type { UsageIncrement } from '../domain/accounts/account-store.js';
import { WINDOW_MS } from '../domain/limits/rate-limit.js';
import { createBatchWriter } from './batch-writer.js';

export interface UsageRecorder extends UsageSink {
  /** Unflushed figures for one key (so key lists are current between flushes). */
  pending(keyId: string): { count: number; lastUsedAt: string } | undefined;
  /** Unflushed hourly increments of one user. */
  pendingFor(userId: string): UsageIncrement[];
  /** Writes everything buffered; safe to call at any time, and on shutdown. */
  flush(): Promise<void>;
  /** Stops the timer and flushes what is left. */
  close(): Promise<void>;
}

export interface UsageRecorderOptions {
  persist: (increments: UsageIncrement[]) => Promise<void>;
  intervalMs: number;
  onError: (error: unknown) => void;
}

/** An increment as buffered: the last use as epoch milliseconds (formatted once per flush, not per request). */
type BufferedIncrement = Omit<UsageIncrement, 'lastUsedAt'> & { lastUsedAtMs: number };

const toIncrement = ({ lastUsedAtMs, ...rest }: BufferedIncrement): UsageIncrement => ({
  ...rest,
  lastUsedAt: new Date(lastUsedAtMs).toISOString(),
});

/** Per-key request counts, last use and hourly history, written in batches (see BatchWriter). */
export function createUsageRecorder({ persist, intervalMs, onError }: UsageRecorderOptions): UsageRecorder {
  const writer = createBatchWriter<BufferedIncrement>({
    key: (inc) => `${inc.keyId}|${inc.hourStartMs}`,
    merge: (existing, inc) => {
      existing.count += inc.count;
      if (inc.lastUsedAtMs > existing.lastUsedAtMs) existing.lastUsedAtMs = inc.lastUsedAtMs;
    },
    persist: (increments) => persist(increments.map(toIncrement)),
    intervalMs,
    onError,
  });

  return {
    record(keyId, userId, at, count = 1) {
      const atMs = at.getTime();
      writer.add({
        keyId,
        userId,
        hourStartMs: Math.floor(atMs / WINDOW_MS) * WINDOW_MS,
        count,
        lastUsedAtMs: atMs,
      });
    },
    pending(keyId) {
      let count = 0;
      let lastUsedAtMs = -1;
      for (const inc of writer.buffered()) {
        if (inc.keyId !== keyId) continue;
        count += inc.count;
        if (inc.lastUsedAtMs > lastUsedAtMs) lastUsedAtMs = inc.lastUsedAtMs;
      }
      return count === 0 ? undefined : { count, lastUsedAt: new Date(lastUsedAtMs).toISOString() };
    },
    pendingFor: (userId) => [...writer.buffered()].filter((inc) => inc.userId === userId).map(toIncrement),
    flush: writer.flush,
    close: writer.close,
  };
}
