import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../common/digest.js';

/**
 * API key format (api-decisions §3): `svk_` + 64 characters of [A-Za-z0-9] from a CSPRNG,
 * stored only as the SHA-256 hex digest of the whole key.
 */
export const KEY_PREFIX = 'svk_';
export const KEY_BODY_LENGTH = 64;
export const DISPLAY_PREFIX_LENGTH = 12;
export const LEGACY_PREFIXES = ['aait_', 'acli_', 'amcp_', 'amkt_', 'ak_'] as const;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// 62 * 4 = 248: bytes ≥ 248 are rejected so that every character is equally likely (no modulo bias).
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

const CURRENT_KEY = /^svk_[A-Za-z0-9]{64}$/;
// Legacy keys come from an older system whose exact lengths are not known; accept a sane token shape.
const LEGACY_KEY = /^(?:aait_|acli_|amcp_|amkt_|ak_)[A-Za-z0-9_-]{16,128}$/;

/** Random characters of the key alphabet, by rejection sampling. `source` is injectable for tests. */
export function randomToken(length: number, source: (n: number) => Uint8Array = randomBytes): string {
  let out = '';
  while (out.length < length) {
    for (const byte of source(length * 2)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += ALPHABET[byte % ALPHABET.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export const generateApiKey = (source?: (n: number) => Uint8Array): string =>
  KEY_PREFIX + randomToken(KEY_BODY_LENGTH, source);

export const hashApiKey = (key: string): string => sha256Hex(key);

export const displayPrefix = (key: string): string => key.slice(0, DISPLAY_PREFIX_LENGTH);

/** Could this string be a key at all? Checked before any I/O, so garbage costs nothing. */
export function isWellFormedKey(candidate: string): boolean {
  return CURRENT_KEY.test(candidate) || LEGACY_KEY.test(candidate);
}

export function isLegacyKey(candidate: string): boolean {
  return LEGACY_KEY.test(candidate);
}
