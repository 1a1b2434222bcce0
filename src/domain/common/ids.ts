import { hash, randomBytes } from 'node:crypto';
import { boundedString } from './bounds.js';
import type { Clock } from './clock.js';

/** Object kinds and their id prefixes (api-decisions §1). */
export type IdPrefix = 'usr' | 'key' | 'prm' | 'mem' | 'art' | 'ses' | 'whk' | 'evt';

export type IdGenerator = (prefix: IdPrefix) => string;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const CROCKFORD_CODES = Array.from(CROCKFORD, (c) => c.charCodeAt(0));

/** Random bytes for ids, drawn from the CSPRNG 256 ids at a time (as node's own randomUUID pools its bytes). */
const POOL_BYTES = 10 * 256;
let pool = new Uint8Array(0);
let poolOffset = POOL_BYTES;

/**
 * ULID body: 48-bit millisecond time (10 chars) + 80 random bits (16 chars), Crockford base32.
 * Time-sortable and unguessable; clients must treat ids as opaque. Built from character codes in one
 * string (no string concatenated a character at a time, no buffer per id: a create makes two ids).
 */
export function ulid(timeMs: number, random?: Uint8Array): string {
  const codes = new Array<number>(26);
  let t = timeMs;
  for (let i = 9; i >= 0; i--) {
    codes[i] = CROCKFORD_CODES[t % 32] as number;
    t = Math.floor(t / 32);
  }
  let bytes = random;
  let start = 0;
  if (bytes === undefined) {
    if (poolOffset + 10 > pool.length) {
      pool = randomBytes(POOL_BYTES);
      poolOffset = 0;
    }
    bytes = pool;
    start = poolOffset;
    poolOffset += 10;
  }
  // 80 bits = 16 groups of 5 bits.
  let bits = 0;
  let value = 0;
  let next = 10;
  for (let i = start; i < start + 10; i++) {
    value = (value << 8) | (bytes[i] as number);
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      codes[next++] = CROCKFORD_CODES[(value >>> bits) & 31] as number;
    }
    value &= (1 << bits) - 1;
  }
  return String.fromCharCode(...codes);
}

export const createIdGenerator =
  (clock: Clock): IdGenerator =>
  (prefix) =>
    `${prefix}_${ulid(clock.now().getTime())}`;

const ID_BODY = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** Whether `value` has the shape of an id of this kind (`prm_` + 26 Crockford base32 characters). */
export const isId = (prefix: IdPrefix, value: string): boolean =>
  value.length === prefix.length + 27 && value.startsWith(`${prefix}_`) && ID_BODY.test(value.slice(prefix.length + 1));

/**
 * A stable id of this kind derived from `seed` (SHA-256, 26 Crockford characters): the same seed always
 * gives the same id, e.g. for an imported object whose own id is taken by another account.
 */
export function derivedId(prefix: IdPrefix, seed: string): string {
  const digest = hash('sha256', seed, 'buffer');
  let body = '';
  for (let i = 0; i < 26; i++) body += CROCKFORD[(digest[i] as number) & 31];
  return `${prefix}_${body}`;
}

/**
 * An id as a tool argument: bounded like a REST path parameter (the router refuses longer ones), then
 * looked up; an id of the wrong shape is simply not found.
 */
export const ID_MAX = 100;
export const idSchema = boundedString(ID_MAX, 'Not a valid id');
