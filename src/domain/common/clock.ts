/** Injected time source, so that tests control "now" (rules of the house §9). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 UTC with milliseconds, the one timestamp format of the API. */
export const isoNow = (clock: Clock): string => clock.now().toISOString();
