/**
 * Hourly rate limits (api-decisions §4): fixed windows aligned to the top of each UTC hour,
 * counted per user across all of the user's keys and all surfaces.
 */
import { TIERS, type Tier } from '../../contract/index.js';

export { TIERS, type Tier };
export type TierLimits = Record<Tier, number>;

export const WINDOW_MS = 3_600_000;

export interface RateWindow {
  /** Epoch milliseconds at which the current window ends (= the next one starts). */
  endsAtMs: number;
  /** `X-RateLimit-Reset`: epoch seconds of the next window start. */
  resetEpochSeconds: number;
  /** Whole seconds until the reset, at least 1 (`retry_after`, `Retry-After`). */
  retryAfterSeconds: number;
}

export function currentWindow(now: Date): RateWindow {
  const nowMs = now.getTime();
  const endsAtMs = (Math.floor(nowMs / WINDOW_MS) + 1) * WINDOW_MS;
  return {
    endsAtMs,
    resetEpochSeconds: endsAtMs / 1000,
    retryAfterSeconds: Math.max(1, Math.ceil((endsAtMs - nowMs) / 1000)),
  };
}

/** A user's own override wins over the tier default. */
export const effectiveLimit = (tier: Tier, override: number | null, limits: TierLimits): number =>
  override ?? limits[tier];

/** One key of an all-or-nothing take: its counter and the most it may reach. */
export interface Take {
  key: string;
  limit: number;
}

/**
 * Counters per key per window, atomic under concurrency. One implementation keeps them in
 * process (one instance); another in a shared store (several instances). Both pass the same contract
 * suite (test/counters/window-counter.contract.test.ts).
 */
export interface WindowCounter {
  /**
   * Adds `units` (default 1) to the key's count if the result stays within `limit`; a refused take
   * consumes nothing. `count` is the count after the take (or the unchanged count when refused).
   */
  tryTake(key: string, limit: number, window: RateWindow, units?: number): Promise<{ taken: boolean; count: number }>;
  /**
   * A reservation on several keys at once: one unit on every key if each stays within its limit, else
   * nothing on any (so a refusal by one key never consumes another's budget). `counts` follow `takes`.
   */
  tryTakeAll(takes: readonly Take[], window: RateWindow): Promise<{ taken: boolean; counts: number[] }>;
  /** Gives back units taken in this window (a refunded reservation); never goes below zero. */
  release(key: string, window: RateWindow, units?: number): Promise<void>;
  /**
   * The admission of an authenticated request in one step (one round trip to a shared store): refused
   * when `blockKey` has counted at least one and has reached `blockLimit` (a client address over its
   * failed-authentication limit), otherwise `tryTake(key, limit)`. Admissions asked together are decided
   * one after the other, in the order asked.
   */
  admit(key: string, limit: number, blockKey: string, blockLimit: number, window: RateWindow): Promise<Admitted>;
  /**
   * `admit` answered at once, offered only by counters held in this process (none of them waits for
   * anything): the hot read answers its batch of requests in one synchronous pass, with no promise in between.
   */
  admitNow?(key: string, limit: number, blockKey: string, blockLimit: number, window: RateWindow): Admitted;
  /** Increments unconditionally and returns the new count. */
  increment(key: string, window: RateWindow): Promise<number>;
  /** The current count, without changing it. */
  peek(key: string, window: RateWindow): Promise<number>;
  close(): Promise<void>;
}

/** What `admit` decided: `blocked` by the block key, else `taken` or not; `count` is the key's count after. */
export interface Admitted {
  blocked: boolean;
  taken: boolean;
  count: number;
}

export interface RateStatus {
  limit: number;
  remaining: number;
  resetEpochSeconds: number;
}
