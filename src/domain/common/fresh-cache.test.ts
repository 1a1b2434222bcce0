import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFreshCache, createStampedCache, monotonicStamp, NO_CHANGE_STAMP } from './fresh-cache.js';

/**
 * A model database: values by key and a change counter that any write moves, read through a stamp the way
 * SQLite's `data_version:total_changes()` is.
 */
function modelDatabase() {
  const values = new Map<string, number>();
  let changes = 0;
  return {
    values,
    write(key: string, value: number) {
      values.set(key, value);
      changes += 1;
    },
    stamp: monotonicStamp(() => String(changes)),
  };
}

const keys = fc.constantFrom('a', 'b', 'c');
/** Writes, and reads whose data comes back only after `writesBetween` writes landed (a slow query). */
const steps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('write' as const), key: keys, value: fc.integer() }),
    fc.record({
      kind: fc.constant('read' as const),
      key: keys,
      writesBetween: fc.integer({ min: 0, max: 2 }),
      requestStampEarly: fc.boolean(),
    }),
  ),
  { maxLength: 60 },
);

describe('fresh cache', () => {
  it('never answers with a value older than the database held when the request arrived', () => {
    fc.assert(
      fc.property(steps, fc.integer({ min: 1, max: 3 }), (program, maxEntries) => {
        const db = modelDatabase();
        const cache = createFreshCache<number>({ stamp: db.stamp, maxEntries });
        let counter = 0;
        for (const step of program) {
          if (step.kind === 'write') {
            db.write(step.key, step.value);
            continue;
          }
          // The request arrives: what the database holds now is the oldest acceptable answer.
          const atArrival = db.values.get(step.key);
          const requestStamp = step.requestStampEarly ? db.stamp() : undefined;
          // Other work lands between the request's arrival and its cache lookup.
          if (step.requestStampEarly) db.write('other', counter++);
          const { value, token } = cache.lookup(step.key, requestStamp);
          if (value !== undefined) {
            // Cached: the value the database held at arrival, or a newer one (written since).
            expect(value === atArrival || value === db.values.get(step.key)).toBe(true);
            continue;
          }
          const read = db.values.get(step.key);
          for (let i = 0; i < step.writesBetween; i++) db.write(step.key, 1_000_000 + counter++);
          if (read !== undefined) cache.store(step.key, read, token);
        }
        // After the last step, a lookup with a fresh stamp is exactly the database.
        for (const key of ['a', 'b', 'c']) {
          const { value } = cache.lookup(key);
          if (value !== undefined) expect(value).toBe(db.values.get(key));
        }
      }),
    );
  });

  it('keeps no more than its entry and weight bounds, and never an entry over a tenth of the weight', () => {
    const db = modelDatabase();
    const cache = createFreshCache<string>({
      stamp: db.stamp,
      maxEntries: 3,
      maxWeight: 100,
      weigh: (v) => v.length,
    });
    const { token } = cache.lookup('x');
    for (const [key, value] of [
      ['a', 'aaaa'],
      ['b', 'bbbbbbb'],
      ['c', 'c'],
      ['d', 'dd'],
      ['big', 'x'.repeat(11)],
    ] as const) {
      cache.store(key, value, token);
    }
    expect(cache.size).toBe(3);
    expect(cache.lookup('a').value).toBeUndefined(); // the oldest went first
    expect(cache.lookup('big').value).toBeUndefined(); // heavier than a tenth of the weight
    expect(cache.lookup('d').value).toBe('dd');
  });

  it('caches nothing where the storage has no change stamp, or cannot read it', () => {
    const cache = createFreshCache<number>({ stamp: NO_CHANGE_STAMP, maxEntries: 10 });
    const { token } = cache.lookup('a');
    cache.store('a', 1, token);
    expect(cache.lookup('a').value).toBeUndefined();
    expect(cache.size).toBe(0);

    let busy = false;
    const flaky = createFreshCache<number>({ stamp: monotonicStamp(() => (busy ? undefined : '1')), maxEntries: 10 });
    flaky.store('a', 1, flaky.lookup('a').token);
    expect(flaky.lookup('a').value).toBe(1);
    busy = true;
    expect(flaky.lookup('a').value).toBeUndefined();
  });

  it('drops an entry read before the cache moved on to a newer stamp', () => {
    const db = modelDatabase();
    const cache = createFreshCache<number>({ stamp: db.stamp, maxEntries: 10 });
    db.write('a', 1);
    const slow = cache.lookup('a'); // a read starts…
    db.write('a', 2);
    expect(cache.lookup('a').value).toBeUndefined(); // …another request sees the change…
    cache.store('a', 1, slow.token); // …and the slow read's old value is not kept.
    expect(cache.lookup('a').value).toBeUndefined();
  });
});

describe('createStampedCache', () => {
  it('answers only a lookup with the stamp an entry was stored under, and nothing without a stamp', () => {
    const cache = createStampedCache<string>({ maxEntries: 10 });
    cache.store('a', 'one', 5);
    expect(cache.lookup('a', 5)).toBe('one');
    // Per-user stamps are not one ordered sequence: a higher or a lower one is a miss alike.
    expect(cache.lookup('a', 6)).toBeUndefined();
    expect(cache.lookup('a', 4)).toBeUndefined();
    expect(cache.lookup('a', undefined)).toBeUndefined();
    cache.store('b', 'two', undefined);
    expect(cache.size).toBe(1);
    cache.store('a', 'newer', 6);
    expect(cache.lookup('a', 6)).toBe('newer');
    expect(cache.lookup('a', 5)).toBeUndefined();
  });

  it('stays within its bounds, the oldest first (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ key: fc.nat(19).map(String), size: fc.constantFrom(1, 1, 2, 2, 2, 3), stamp: fc.nat(3) }),
          {
            minLength: 30,
            maxLength: 80,
          },
        ),
        (stores) => {
          // Both bounds bind: up to 12 entries of at most 2 characters (a tenth of 20; 3 is refused), 20 in all.
          const cache = createStampedCache<string>({ maxEntries: 12, maxWeight: 20, weigh: (v) => v.length });
          const kept = new Map<string, { value: string; stamp: number }>();
          for (const { key, size, stamp } of stores) {
            const value = 'x'.repeat(size);
            cache.store(key, value, stamp);
            if (size <= 2) {
              kept.delete(key);
              kept.set(key, { value, stamp });
              let total = [...kept.values()].reduce((sum, e) => sum + e.value.length, 0);
              for (const [oldest, entry] of kept) {
                if (kept.size <= 12 && total <= 20) break;
                kept.delete(oldest);
                total -= entry.value.length;
              }
            }
            expect(cache.size).toBe(kept.size);
          }
          for (const [key, { value, stamp }] of kept) expect(cache.lookup(key, stamp)).toBe(value);
        },
      ),
    );
  });
});
