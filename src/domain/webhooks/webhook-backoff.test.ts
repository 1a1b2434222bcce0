import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './webhook-backoff.js';
import { generateWebhookSecret, signatureHeader, verifySignature } from './webhook-signature.js';

describe('retry delays', () => {
  const schedule = { baseMs: 10_000, maxMs: 21_600_000, maxAttempts: 12 };

  it('doubles per attempt, stays within [half, all] of the capped delay, and never passes the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (n, r) => {
        const full = Math.min(schedule.maxMs, schedule.baseMs * 2 ** (n - 1));
        const delay = retryDelayMs(schedule, n, r);
        return delay >= Math.floor(full / 2) && delay <= full && delay <= schedule.maxMs;
      }),
    );
    expect([1, 2, 3, 4].map((n) => retryDelayMs(schedule, n, 0))).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(retryDelayMs({ ...schedule, baseMs: 0 }, 5, 0.5)).toBe(0);
  });
});

describe('signatures', () => {
  it('signs t.body with HMAC-SHA256 of the whole secret, and verifies within the replay window only', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    const body = '{"id":"evt_1","type":"memory.created"}';
    const header = signatureHeader(secret, 1_800_000_000, body);
    expect(header).toBe(`t=1800000000,v1=${createHmac('sha256', secret).update(`1800000000.${body}`).digest('hex')}`);
    expect(verifySignature(secret, header, body, 1_800_000_000)).toBe(true);
    expect(verifySignature(secret, header, body, 1_800_000_300)).toBe(true);
    expect(verifySignature(secret, header, body, 1_800_000_301)).toBe(false); // replayed too late
    expect(verifySignature(secret, header, `${body} `, 1_800_000_000)).toBe(false);
    expect(verifySignature(generateWebhookSecret(), header, body, 1_800_000_000)).toBe(false);
    expect(verifySignature(secret, 't=x,v1=zz', body, 1_800_000_000)).toBe(false);
  });
});
