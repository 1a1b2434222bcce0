import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import { RateLimitedError, UnauthorizedError } from '../common/errors.js';
import { boundedMap, type ChangeStamp, createFreshCache, NO_CHANGE_STAMP } from '../common/fresh-cache.js';
import {
  currentWindow,
  effectiveLimit,
  type RateStatus,
  type RateWindow,
  type TierLimits,
  type WindowCounter,
} from '../limits/rate-limit.js';
import type { ApiKeyStore, KeyPrincipal } from './account-store.js';
import { hashApiKey, isWellFormedKey } from './api-key.js';
import { acceptedIntegrations, allows, type Integration, type Surface } from './integrations.js';

/** Records one authenticated request of a key; implementations batch, never write per request. */
export interface UsageSink {
  /** `count` calls at once (a JSON-RPC batch counts each of its messages); 1 by default. */
  record(keyId: string, userId: string, at: Date, count?: number): void;
}

export interface AccessGateDeps {
  keys: ApiKeyStore;
  counters: WindowCounter;
  usage: UsageSink;
  clock: Clock;
  tierLimits: TierLimits;
  /** Failed authentications allowed per client IP per hour before that IP gets 429s. */
  authFailureLimit: number;
  /**
   * The database's change stamp: with one, known keys are looked up in memory until anything in the
   * database changes (a revocation anywhere takes effect on the very next request). Without, every
   * request reads its key from the database.
   */
  changeStamp?: ChangeStamp;
}

/** Keys kept in memory (a principal is a few hundred bytes). */
const CACHED_KEYS = 10_000;

/**
 * A key as the gate keeps it: its principal, its integrations as a set (shared by its actors, read-only),
 * and what counting its requests needs (worked out once per lookup, not per request).
 */
interface KnownKey {
  principal: KeyPrincipal;
  held: ReadonlySet<Integration>;
  rateKey: string;
  limit: number;
}

/** A key found valid in memory by `peek`: not yet counted. */
export interface Peeked {
  known: KnownKey;
  actor: Actor;
}

export interface Admission {
  actor: Actor;
  rate: RateStatus;
  /** The window the request was counted in (further units of the same request go there too). */
  window: RateWindow;
}

/** A 429 that still carries the rate-limit headers of the authenticated user. */
export class UserRateLimitedError extends RateLimitedError {
  constructor(
    retryAfterSeconds: number,
    readonly rate: RateStatus,
  ) {
    super(retryAfterSeconds, 'Rate limit exceeded; retry after the window resets');
  }
}

const UNAUTHORIZED_MESSAGE = 'Invalid or missing API key';

/**
 * The one admission sequence for every API-key surface (REST and MCP): client-IP brute-force guard,
 * key lookup by SHA-256 (malformed keys never reach the store), integration policy, per-user hourly
 * limit, usage recording. One indexed read and in-memory (or one shared-store) counting per request.
 */
export function createAccessGate(deps: AccessGateDeps) {
  const { keys, counters, usage, clock, tierLimits, authFailureLimit } = deps;
  const changeStamp = deps.changeStamp ?? NO_CHANGE_STAMP;
  const principals = createFreshCache<KnownKey>({
    stamp: changeStamp,
    maxEntries: CACHED_KEYS,
  });
  /**
   * Hashes of keys `admit` found valid (the newest CACHED_KEYS): `lookUp` reads only those. Not a cache of
   * validity (each lookup still reads the key), only of which keys are worth a read before the full way.
   */
  const admittedBefore = boundedMap<boolean>(CACHED_KEYS);

  /** The key's owner and policy, from memory while the database is unchanged. Unknown keys are not kept. */
  async function knownKey(keyHash: string, stamp: number | undefined): Promise<KnownKey | undefined> {
    const { value, token } = principals.lookup(keyHash, stamp);
    if (value) return value;
    const principal = await keys.findPrincipalByHash(keyHash);
    if (!principal) return undefined;
    const known: KnownKey = {
      principal,
      held: new Set<Integration>(principal.integrations),
      rateKey: `rate:${principal.userId}`,
      limit: effectiveLimit(principal.tier, principal.rateLimit, tierLimits),
    };
    principals.store(keyHash, known, token);
    return known;
  }

  const tooManyFailures = (window: ReturnType<typeof currentWindow>) =>
    new RateLimitedError(window.retryAfterSeconds, 'Too many failed authentication attempts from this address');

  /** Counts the failure; past the limit the address gets 429 instead of 401. One counter round trip. */
  async function failAuthentication(
    clientIp: string,
    window: RateWindow,
    message = UNAUTHORIZED_MESSAGE,
  ): Promise<never> {
    const failures = await counters.increment(`authfail:${clientIp}`, window);
    if (failures > authFailureLimit) throw tooManyFailures(window);
    throw new UnauthorizedError(message);
  }

  /**
   * The actor of an admitted request of `known` on `surface`. Its prompts stamp: the database's change
   * stamp `stamp` where there is one, else the user's prompt stamp the key was just read with (keys are
   * never kept in memory without a change stamp, so that one is as fresh as the request).
   */
  const actorOf = ({ principal, held }: KnownKey, surface: Surface, stamp: number | undefined): Actor => ({
    userId: principal.userId,
    integrations: held,
    via: surface === 'mcp' ? 'mcp' : 'rest',
    keyId: principal.keyId,
    // The integration this request is admitted under: the first the surface accepts that the key holds.
    integration: acceptedIntegrations(surface).find((integration) => held.has(integration)),
    promptsStamp: stamp ?? principal.promptsStamp,
  });

  /**
   * The per-user limit and the client address's failure budget, in one counter round trip. An address
   * that used up its failures is refused even with a valid key, so that guessing cannot go on with only
   * the right guess answered differently.
   */
  const count = (known: KnownKey, clientIp: string, window: RateWindow) =>
    counters.admit(known.rateKey, known.limit, `authfail:${clientIp}`, authFailureLimit, window);
  /** `count` at once, with counters held in this process (`peek` is only offered with them). */
  const admitNow = counters.admitNow?.bind(counters);

  /** The peek of `known` on `surface`: undefined where `admit` would not admit it (unknown, revoked, not allowed). */
  const peekedOf = (known: KnownKey | undefined, surface: Surface, stamp: number | undefined): Peeked | undefined =>
    known && !known.principal.revoked && allows(known.held, surface)
      ? { known, actor: actorOf(known, surface, stamp) }
      : undefined;

  const rateStatus = (limit: number, count: number, window: RateWindow): RateStatus => ({
    limit,
    remaining: Math.max(0, limit - count),
    resetEpochSeconds: window.resetEpochSeconds,
  });

  return {
    async admit(authorization: string | undefined, surface: Surface, clientIp: string): Promise<Admission> {
      const now = clock.now();
      const window = currentWindow(now);
      const keyHash = presentedKeyHash(authorization);
      if (keyHash === undefined) return failAuthentication(clientIp, window);
      // One reading of the database's change stamp serves this request's caches (the key here, e.g. the
      // prompt it reads later): taken now, it is older than any read the request makes.
      const stamp = changeStamp();
      const known = await knownKey(keyHash, stamp);
      if (!known || known.principal.revoked) return failAuthentication(clientIp, window);
      // Kept in the order first admitted: one Map read per admission, no reinsertion (it is only a hint).
      if (admittedBefore.get(keyHash) === undefined) admittedBefore.set(keyHash, true);

      if (!allows(known.held, surface)) {
        // A failure like any other: probing which surfaces a key opens spends the address's budget too.
        return failAuthentication(
          clientIp,
          window,
          `This API key lacks the integration this endpoint needs: ${acceptedIntegrations(surface).join(' or ')}`,
        );
      }

      const { blocked, taken, count: counted } = await count(known, clientIp, window);
      if (blocked) throw tooManyFailures(window);
      usage.record(known.principal.keyId, known.principal.userId, now);
      const rate = rateStatus(known.limit, counted, window);
      if (!taken) throw new UserRateLimitedError(window.retryAfterSeconds, rate);
      return { actor: actorOf(known, surface, stamp), rate, window };
    },

    /**
     * The first half of `admit` for a request that could be answered from memory (http/hot-reads.ts):
     * the actor of a key known in memory, valid and allowed on `surface`, with no I/O and nothing
     * counted. `undefined` whenever `admit` might answer otherwise than with an admission (no stamp, an
     * unknown, revoked or malformed key, a surface the key lacks, counters that cannot admit at once): the
     * caller then goes the full way. `stamp`: a reading of the database's change stamp taken after the
     * request arrived (the caller may share one among requests that had all arrived when it was read;
     * without a reading there is nothing to peek at).
     */
    peek(authorization: string | undefined, surface: Surface, stamp: number): Peeked | undefined {
      if (!admitNow) return undefined;
      const keyHash = presentedKeyHash(authorization);
      if (keyHash === undefined) return undefined;
      return peekedOf(principals.lookup(keyHash, stamp).value, surface, stamp);
    },

    /**
     * `peek` for a gate whose keys are not all in memory or whose counters do not admit at once (PostgreSQL,
     * a shared counter store): the key is read now (from memory while the change stamp says it is fresh, else
     * from the store: one query for all of a turn's lookups on PostgreSQL) and nothing is counted. The same
     * `undefined` as `peek` whenever `admit` might answer otherwise than with an admission. Read after the
     * request arrived, so a revocation committed before it arrived is seen.
     */
    async lookUp(authorization: string | undefined, surface: Surface): Promise<Peeked | undefined> {
      const keyHash = presentedKeyHash(authorization);
      // A key this gate never found valid goes the full way at once: a guessed key is read once, there.
      if (keyHash === undefined || admittedBefore.get(keyHash) === undefined) return undefined;
      const stamp = changeStamp();
      return peekedOf(await knownKey(keyHash, stamp), surface, stamp);
    },

    /**
     * `admitPeeked` through counters that answer later (one Redis script call for all of a turn's
     * admissions): the admission, or `undefined` — having counted and recorded nothing — when `admit` would
     * refuse the request.
     */
    async admitLookedUp({ known, actor }: Peeked, clientIp: string): Promise<Admission | undefined> {
      const now = clock.now();
      const window = currentWindow(now);
      const { blocked, taken, count: counted } = await count(known, clientIp, window);
      if (blocked || !taken) return undefined;
      usage.record(known.principal.keyId, known.principal.userId, now);
      return { actor, rate: rateStatus(known.limit, counted, window), window };
    },

    /**
     * The second half, for a peeked key: counts the request exactly as `admit` would and returns its
     * admission, or `undefined` — having counted and recorded nothing — when `admit` would refuse it (the
     * rate limit or the address's failure budget is spent), so the caller can go the full way for the 429.
     * Synchronous: a key is only peeked with counters that admit at once.
     */
    admitPeeked({ known, actor }: Peeked, clientIp: string): Admission | undefined {
      if (!admitNow) throw new Error('admitPeeked needs counters that admit at once (peek offers none without)');
      const now = clock.now();
      const window = currentWindow(now);
      const {
        blocked,
        taken,
        count: counted,
      } = admitNow(known.rateKey, known.limit, `authfail:${clientIp}`, authFailureLimit, window);
      // A refused admission counts nothing (WindowCounter.admit), so the full way counts it once.
      if (blocked || !taken) return undefined;
      usage.record(known.principal.keyId, known.principal.userId, now);
      return { actor, rate: rateStatus(known.limit, counted, window), window };
    },

    /**
     * `units` more on the user's hourly count for an admitted request that carries several calls (each
     * message of a JSON-RPC batch counts), all or none. Refused, the request's own unit is given back as
     * well — a 429 consumes nothing — and the 429 carries the rate headers. Returns the headers' new state.
     */
    async reserveMore(admission: Admission, units: number): Promise<RateStatus> {
      const { actor, rate, window } = admission;
      const key = `rate:${actor.userId}`;
      const { taken, count } = await counters.tryTake(key, rate.limit, window, units);
      if (!taken) {
        await counters.release(key, window);
        const retryAfter = Math.max(1, Math.ceil((window.endsAtMs - clock.now().getTime()) / 1000));
        throw new UserRateLimitedError(retryAfter, { ...rate, remaining: Math.max(0, rate.limit - (count - 1)) });
      }
      if (actor.keyId) usage.record(actor.keyId, actor.userId, clock.now(), units);
      return { ...rate, remaining: Math.max(0, rate.limit - count) };
    },
  };
}

export type AccessGate = ReturnType<typeof createAccessGate>;

/** The hash of a well-formed key presented as `Bearer <key>`; undefined for anything else (never looked up). */
function presentedKeyHash(authorization: string | undefined): string | undefined {
  const presented = parseBearer(authorization);
  return presented !== undefined && isWellFormedKey(presented) ? hashApiKey(presented) : undefined;
}

/** `Bearer <token>`, scheme case-insensitive (RFC 7235); anything else is no credential. */
export function parseBearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}
