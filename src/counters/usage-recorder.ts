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

/** Per-key request counts, last use and hourly history, written in batches (see BatchWriter). */
export function createUsageRecorder({ persist, intervalMs, onError }: UsageRecorderOptions): UsageRecorder {
  const writer = createBatchWriter<UsageIncrement>({
    key: (inc) => `${inc.keyId}|${inc.hourStartMs}`,
    merge: (existing, inc) => {
      existing.count += inc.count;
      if (inc.lastUsedAt > existing.lastUsedAt) existing.lastUsedAt = inc.lastUsedAt;
    },
    persist,
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
        lastUsedAt: at.toISOString(),
      });
    },
    pending(keyId) {
      let count = 0;
      let lastUsedAt = '';
      for (const inc of writer.buffered()) {
        if (inc.keyId !== keyId) continue;
        count += inc.count;
        if (inc.lastUsedAt > lastUsedAt) lastUsedAt = inc.lastUsedAt;
      }
      return count === 0 ? undefined : { count, lastUsedAt };
    },
    pendingFor: (userId) => [...writer.buffered()].filter((inc) => inc.userId === userId),
    flush: writer.flush,
    close: writer.close,
  };
}
