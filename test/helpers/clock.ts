const HOUR_MS = 3_600_000;

/**
 * Rate limits count per UTC clock hour. A test that counts within one window on the real clock (separate
 * processes, Redis counters) fails if it straddles the hour: the count starts again half-way. This waits,
 * when needed, until at least `marginMs` remain before the next hour — at most `marginMs` + 1 s.
 */
export async function awayFromHourBoundary(marginMs: number): Promise<void> {
  const toNextHour = HOUR_MS - (Date.now() % HOUR_MS);
  if (toNextHour < marginMs) await new Promise((resolve) => setTimeout(resolve, toNextHour + 1000));
}
