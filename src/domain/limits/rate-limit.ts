/**
 * Hourly rate limits (api-decisions §4): fixed windows aligned to the top of each UTC hour,
 * counted per user across all of the user's keys and all surfaces.
 */
export const TIERS = ['free', 'pro', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];
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

/**
 * Counters per key per window, atomic under concurrency. One implementation keeps them in
 * process (one instance); another in a shared store (several instances).
 */
export interface WindowCounter {
  /** Increments the key's count unless it already reached `limit`; a refused take consumes nothing. */
  tryTake(key: string, limit: number, window: RateWindow): Promise<{ taken: boolean; count: number }>;
  /**
   * The admission of an authenticated request in one step (one round trip to a shared store): refused
   * when `blockKey` has reached `blockLimit` (a client address over its failed-authentication limit),
   * otherwise `tryTake(key, limit)`.
   */
  admit(
    key: string,
    limit: number,
    blockKey: string,
    blockLimit: number,
    window: RateWindow,
  ): Promise<{ blocked: boolean; taken: boolean; count: number }>;
  /** Increments unconditionally and returns the new count. */
  increment(key: string, window: RateWindow): Promise<number>;
  /** The current count, without changing it. */
  peek(key: string, window: RateWindow): Promise<number>;
  close(): Promise<void>;
}

export interface RateStatus {
  limit: number;
  remaining: number;
  resetEpochSeconds: number;
}
