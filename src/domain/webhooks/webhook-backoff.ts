/** When to retry a failed delivery: exponential backoff with full jitter, capped (docs/webhooks.md). */
export interface RetrySchedule {
  /** Delay before the 2nd attempt (before jitter). */
  baseMs: number;
  /** No delay is longer than this. */
  maxMs: number;
  /** Attempts in all, the first included; after the last failure the delivery is given up ("failed"). */
  maxAttempts: number;
}

/**
 * Delay after `attempt` (1-based) failed: base × 2^(attempt−1), capped, then "equal jitter" (half fixed, half
 * random) so a receiver coming back is not hit by every retry at once. `random` in [0, 1) is injected.
 */
export function retryDelayMs(schedule: RetrySchedule, attempt: number, random: number): number {
  const exp = Math.min(schedule.maxMs, schedule.baseMs * 2 ** Math.min(attempt - 1, 40));
  return Math.floor(exp / 2 + (exp / 2) * random);
}
