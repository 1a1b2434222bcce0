import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batchPerTurn, type TurnBatchOptions } from './turn-batch.js';

/** The next check phase: every batch of the current turn has been started by then. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A batcher whose batches each wait until the test releases them (oldest first in `releases`). */
function heldBatches(options?: TurnBatchOptions) {
  const releases: Array<() => void> = [];
  const started: string[][] = [];
  const ask = batchPerTurn(
    (items: string[]) =>
      new Promise<string[]>((resolve) => {
        started.push(items);
        releases.push(() => resolve(items));
      }),
    options,
  );
  return { ask, started, releases };
}

describe('batchPerTurn', () => {
  it('gives each caller its own output, one run per turn and per maxBatch items, in the order asked (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Turns, each a list of items asked in it.
        fc.array(fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: 12 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 5 }),
        async (turns, maxBatch) => {
          const runs: number[][] = [];
          const square = batchPerTurn(
            async (items: number[]) => {
              runs.push(items);
              return items.map((n) => n * n);
            },
            { maxBatch },
          );
          const expectedRuns: number[][] = [];
          for (const turn of turns) {
            const answers = turn.map((n) => square(n));
            expect(await Promise.all(answers)).toEqual(turn.map((n) => n * n));
            for (let start = 0; start < turn.length; start += maxBatch) {
              expectedRuns.push(turn.slice(start, start + maxBatch));
            }
          }
          expect(runs).toEqual(expectedRuns);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('rejects every caller of a batch that fails, and only those', async () => {
    let turn = 0;
    const echo = batchPerTurn(async (items: string[]) => {
      turn += 1;
      if (turn === 1) throw new Error('store down');
      return items;
    });
    const first = [echo('a'), echo('b')];
    await expect(Promise.all(first.map((p) => p.catch((error: Error) => error.message)))).resolves.toEqual([
      'store down',
      'store down',
    ]);
    await expect(Promise.all([echo('c'), echo('d')])).resolves.toEqual(['c', 'd']);
  });

  it('rejects a batch whose run answers a different number of outputs, and a run that throws at once', async () => {
    const short = batchPerTurn(async (items: number[]) => items.slice(1));
    await expect(Promise.all([short(1), short(2)])).rejects.toThrow('a batch of 2 items returned 1 outputs');
    const throwing = batchPerTurn<number, number>(() => {
      throw new Error('at once');
    });
    await expect(throwing(1)).rejects.toThrow('at once');
  });

  it('starts the next turn’s batch without waiting for a slow one', async () => {
    const { ask: slow, started, releases } = heldBatches();
    const first = slow('first');
    await nextTurn();
    const second = slow('second');
    await nextTurn();
    expect(started).toEqual([['first'], ['second']]);
    for (const release of releases.reverse()) release();
    await expect(Promise.all([first, second])).resolves.toEqual(['first', 'second']);
  });

  it('runs at most maxInFlight batches; what is asked meanwhile waits and goes together when one ends', async () => {
    const { ask: held, started, releases } = heldBatches({ maxInFlight: 1, patienceMs: 60_000 });
    const first = held('a');
    await nextTurn();
    const waiting = [held('b')];
    await nextTurn();
    waiting.push(held('c'), held('d'));
    await nextTurn();
    expect(started).toEqual([['a']]);
    releases.shift()?.();
    await expect(first).resolves.toBe('a');
    await nextTurn();
    expect(started).toEqual([['a'], ['b', 'c', 'd']]);
    releases.shift()?.();
    await expect(Promise.all(waiting)).resolves.toEqual(['b', 'c', 'd']);
  });

  it('keeps order and outputs whatever the limits (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer(), { maxLength: 8 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        async (turns, maxInFlight, maxBatch) => {
          const seen: number[] = [];
          const negate = batchPerTurn(
            async (items: number[]) => {
              seen.push(...items);
              await nextTurn(); // each batch takes a turn, so later turns find the places taken
              return items.map((n) => -n);
            },
            { maxInFlight, maxBatch, patienceMs: 60_000 },
          );
          const answers: Array<Promise<number>> = [];
          for (const turn of turns) {
            answers.push(...turn.map((n) => negate(n)));
            await nextTurn();
          }
          const flat = turns.flat();
          expect(await Promise.all(answers)).toEqual(flat.map((n) => -n));
          expect(seen).toEqual(flat);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('lets a batch that never ends stop holding its place after patienceMs', async () => {
    const started: number[][] = [];
    const stuck = batchPerTurn(
      (items: number[]) => {
        started.push(items);
        // The first batch never answers (a store connection that went silent); the others do.
        return started.length === 1 ? new Promise<number[]>(() => {}) : Promise.resolve(items);
      },
      { maxInFlight: 1, patienceMs: 5 },
    );
    void stuck(1);
    await nextTurn();
    await expect(stuck(2)).resolves.toBe(2);
    expect(started).toEqual([[1], [2]]);
  });

  it('refuses a maxBatch that is not a positive integer', () => {
    for (const maxBatch of [0, -1, 1.5, Number.NaN]) {
      expect(() => batchPerTurn(async (items: number[]) => items, { maxBatch })).toThrow(RangeError);
      expect(() => batchPerTurn(async (items: number[]) => items, { maxInFlight: maxBatch })).toThrow(RangeError);
    }
    expect(() => batchPerTurn(async (items: number[]) => items, { patienceMs: 0 })).toThrow(RangeError);
  });
});
