import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The signature scheme (docs/webhooks.md "Verifying a delivery"):
 *
 *   Cairn-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 *
 * The secret is the whole `whsec_…` string as UTF-8 bytes. Receivers recompute over the raw body bytes,
 * compare in constant time, and refuse a `t` outside their replay window (5 minutes recommended), then
 * dedupe on the event id (`Cairn-Event-Id`, also the body's `id`).
 */
export const SIGNATURE_HEADER = 'cairn-signature';
export const EVENT_ID_HEADER = 'cairn-event-id';
export const EVENT_TYPE_HEADER = 'cairn-event-type';
export const ATTEMPT_HEADER = 'cairn-delivery-attempt';
export const REPLAY_WINDOW_SECONDS = 300;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `whsec_` + 40 characters of [A-Za-z0-9] from the CSPRNG, without modulo bias. */
export function generateWebhookSecret(): string {
  let out = 'whsec_';
  while (out.length < 46) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < 46) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function signatureHeader(secret: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/** The receiver's check, as documented (for the CLI and for receivers written in TypeScript). */
export function verifySignature(
  secret: string,
  header: string,
  body: string,
  nowSeconds: number,
  windowSeconds = REPLAY_WINDOW_SECONDS,
): boolean {
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > windowSeconds || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}
