/**
 * Calls made in one turn of the event loop, run together as one batch (issue 15, docs/performance.md
 * "Session 15").
 *
 * Requests that arrive together are parsed one after the other in the same poll phase, and each asks the
 * same remote store the same kind of question (its key's principal from PostgreSQL, its rate-limit
 * admission from Redis). Asked one by one, each question is a round trip of its own: a socket write and a
 * read, each a system call that costs more than the question on a virtual machine, plus the driver's work
 * per message. Asked together, a turn's questions cost one round trip.
 *
 * `batchPerTurn(run)` returns a function of one item; the items given to it before the event loop's next
 * check phase (`setImmediate`) are passed to `run` together, in the order they came, and each caller gets
 * the output at its item's position. A batch starts without waiting for an earlier one to finish, so a
 * slow batch never holds up the next turn's. The wait is the rest of the current turn, never a timer.
 *
 * Freshness: an item's batch runs after the item was given, so what the batch reads is at least as fresh
 * as a read made at that moment (a key revoked before its request arrived is seen revoked).
 */
export interface TurnBatchOptions {
  /** Most items in one call of `run`; a turn with more runs several batches (all at once). */
  maxBatch?: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

export function batchPerTurn<I, O>(
  run: (items: I[]) => Promise<readonly O[]>,
  { maxBatch = 256 }: TurnBatchOptions = {},
): (item: I) => Promise<O> {
  if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new RangeError('maxBatch must be a positive integer');
  let pending: Pending<I, O>[] = [];

  async function runBatch(batch: Pending<I, O>[]) {
    try {
      const outputs = await run(batch.map((entry) => entry.item));
      if (outputs.length !== batch.length) {
        throw new Error(`a batch of ${batch.length} items returned ${outputs.length} outputs`);
      }
      for (let i = 0; i < batch.length; i++) (batch[i] as Pending<I, O>).resolve(outputs[i] as O);
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }

  function flush() {
    const all = pending;
    pending = [];
    for (let start = 0; start < all.length; start += maxBatch) void runBatch(all.slice(start, start + maxBatch));
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ item, resolve, reject });
    });
}
