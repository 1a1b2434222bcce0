/**
 * The database's change stamp: a number that grows whenever the stored data may have changed — by this
 * process or by any other sharing the database (a second server instance, an operator's `cairn` command).
 * Stamps are compared by order: a larger one was read later. `undefined` means the storage cannot tell
 * cheaply, and nothing may be cached.
 */
export type ChangeStamp = () => number | undefined;

/** Storage that offers no change stamp: every read goes to the database. */
export const NO_CHANGE_STAMP: ChangeStamp = () => undefined;

/**
 * A change stamp from a raw reading that only ever changes (never repeats an earlier value), such as
 * SQLite's `data_version:total_changes()`: the number of distinct readings seen so far.
 */
export function monotonicStamp(read: () => string | undefined): ChangeStamp {
  let last: string | undefined;
  let sequence = 0;
  return () => {
    const raw = read();
    if (raw === undefined) return undefined;
    if (raw !== last) {
      last = raw;
      sequence += 1;
    }
    return sequence;
  };
}

/**
 * The entries of an in-process cache, bounded by count and total weight: the oldest inserted go first, and
 * an item heavier than a tenth of `maxWeight` is never kept. Each item's weight is taken once, when set.
 */
function boundedEntries<T>(maxEntries: number, maxWeight = Number.POSITIVE_INFINITY) {
  const entries = new Map<string, { item: T; weight: number }>();
  let total = 0;
  const remove = (key: string) => {
    const entry = entries.get(key);
    if (entry === undefined) return;
    entries.delete(key);
    total -= entry.weight;
  };
  return {
    get: (key: string): T | undefined => entries.get(key)?.item,
    set(key: string, item: T, weight: number): void {
      if (weight > maxWeight / 10) return;
      remove(key);
      for (const oldest of entries.keys()) {
        if (entries.size < maxEntries && total + weight <= maxWeight) break;
        remove(oldest);
      }
      entries.set(key, { item, weight });
      total += weight;
    },
    clear(): void {
      entries.clear();
      total = 0;
    },
    get size() {
      return entries.size;
    },
  };
}

/** A map of at most `maxEntries` items, the oldest inserted dropped first (no stamp: for hints, not data). */
export function boundedMap<T>(maxEntries: number): {
  get(key: string): T | undefined;
  set(key: string, item: T): void;
} {
  const entries = boundedEntries<T>(maxEntries);
  return { get: entries.get, set: (key, item) => entries.set(key, item, 0) };
}

export interface FreshCacheOptions<V> {
  stamp: ChangeStamp;
  /** Most entries kept; the oldest inserted go first. */
  maxEntries: number;
  /** Most total weight kept (e.g. characters); an entry heavier than a tenth of it is never kept. */
  maxWeight?: number;
  weigh?: (value: V) => number;
}

/**
 * An in-process read cache that never answers with data older than the request asking: every entry was
 * read from the database after the cache's current stamp was taken, and a lookup whose stamp is newer
 * empties the cache first. A write between taking a stamp and reading the data only makes an entry look
 * older than it is (it is thrown away early). It pays off for hot reads between writes (an authenticated
 * read's key and prompt), not for data written as often as it is read.
 *
 * Usage: `const { value, token } = cache.lookup(key, requestStamp)`; on a miss read the data, then
 * `cache.store(key, data, token)` with the token of that lookup: the entry is kept only if the cache has
 * not moved to a newer stamp meanwhile. Fill it only from reads made outside a transaction: on SQLite the
 * stamp does not count an open group transaction's changes until the group ends (storage/durable-commit.ts,
 * storage/sqlite-change-stamp.ts), which is sound because only a read inside a transaction can see them. `requestStamp` is a stamp taken when the request arrived (one
 * reading serves all of a request's caches); without it the lookup takes its own.
 */
export function createFreshCache<V>(options: FreshCacheOptions<V>) {
  const { stamp: readStamp, maxEntries, maxWeight, weigh } = options;
  const entries = boundedEntries<V>(maxEntries, maxWeight);
  /** Every entry reflects all changes up to this stamp. */
  let generation = 0;

  return {
    lookup(key: string, requestStamp?: number): { value: V | undefined; token: number | undefined } {
      const stamp = requestStamp ?? readStamp();
      if (stamp === undefined) return { value: undefined, token: undefined };
      if (stamp > generation) {
        entries.clear();
        generation = stamp;
        return { value: undefined, token: generation };
      }
      // An older request stamp may use newer entries: they reflect every change made before it arrived.
      return { value: entries.get(key), token: generation };
    },

    /** Keeps `value`, read after the lookup that returned `token`, unless the cache moved on since. */
    store(key: string, value: V, token: number | undefined): void {
      if (token === undefined || token !== generation) return;
      entries.set(key, value, weigh ? weigh(value) : 0);
    },

    get size() {
      return entries.size;
    },
  };
}

export type FreshCache<V> = ReturnType<typeof createFreshCache<V>>;

/** createFreshCache's bounds, without its stamp: each lookup and store names its own. */
export type StampedCacheOptions<V> = Omit<FreshCacheOptions<V>, 'stamp'>;

/**
 * An in-process read cache whose entries each carry the stamp they were read under, and answer only a
 * lookup with the same stamp. For stamps that are not one ordered sequence, such as a counter per user
 * (PostgreSQL's `users.prompts_stamp`, read with the key: a change by any instance changes it, so the very
 * next request misses), and for the database's change stamp as well (an entry of an older stamp is a miss).
 *
 * Sound when the stamp is read before the data: data read after it is at least as fresh as the stamp says,
 * and any later change makes later requests read another stamp. Bounded like createFreshCache; entries of
 * stamps no longer current stay until newer ones push them out.
 */
export function createStampedCache<V>(options: StampedCacheOptions<V>) {
  const { maxEntries, maxWeight, weigh } = options;
  const entries = boundedEntries<{ stamp: number; value: V }>(maxEntries, maxWeight);

  return {
    /** The value kept for `key` under `stamp`, if any; no stamp, no answer. */
    lookup(key: string, stamp: number | undefined): V | undefined {
      if (stamp === undefined) return undefined;
      const entry = entries.get(key);
      return entry !== undefined && entry.stamp === stamp ? entry.value : undefined;
    },

    /** Keeps `value`, read after `stamp` was taken, in place of what `key` held. */
    store(key: string, value: V, stamp: number | undefined): void {
      if (stamp === undefined) return;
      entries.set(key, { stamp, value }, weigh ? weigh(value) : 0);
    },

    get size() {
      return entries.size;
    },
  };
}
