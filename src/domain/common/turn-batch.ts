import { performance } from 'node:perf_hooks';

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
 * the output at its item's position.
 *
 * **Batches in flight.** With `maxInFlight`, at most that many batches run at once: items asked while they
 * run wait, and go together when one ends. Under load that makes batches larger and round trips fewer
 * (on PostgreSQL + Redis, 2 in flight served a third more hot reads at 50 connections than no limit,
 * docs/performance.md). A batch that has run for `patienceMs` no longer holds its place, so a stalled store
 * connection delays the others by that much at most, never stops them.
 *
 * Freshness: an item's batch runs after the item was given, so what the batch reads is at least as fresh
 * as a read made at that moment (a key revoked before its request arrived is seen revoked).
 */
export interface TurnBatchOptions {
  /** Most items in one call of `run`; a turn with more runs several batches. */
  maxBatch?: number;
  /** Most batches running at once (unlimited by default). */
  maxInFlight?: number;
  /** Milliseconds after which a running batch no longer counts against `maxInFlight`. */
  patienceMs?: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

export function batchPerTurn<I, O>(
  run: (items: I[]) => Promise<readonly O[]>,
  { maxBatch = 256, maxInFlight = Number.POSITIVE_INFINITY, patienceMs = 100 }: TurnBatchOptions = {},
): (item: I) => Promise<O> {
  if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new RangeError('maxBatch must be a positive integer');
  if (!(maxInFlight >= 1) || (Number.isFinite(maxInFlight) && !Number.isInteger(maxInFlight))) {
    throw new RangeError('maxInFlight must be a positive integer');
  }
  if (!(patienceMs > 0)) throw new RangeError('patienceMs must be positive');
  const pending: Pending<I, O>[] = [];
  /** When each running batch started (performance.now()). */
  const running = new Set<{ started: number }>();
  let scheduled = false;
  let retry: ReturnType<typeof setTimeout> | undefined;

  async function runBatch(batch: Pending<I, O>[]) {
    const token = { started: performance.now() };
    running.add(token);
    try {
      const outputs = await run(batch.map((entry) => entry.item));
      if (outputs.length !== batch.length) {
        throw new Error(`a batch of ${batch.length} items returned ${outputs.length} outputs`);
      }
      for (let i = 0; i < batch.length; i++) (batch[i] as Pending<I, O>).resolve(outputs[i] as O);
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      running.delete(token);
      // Items that waited for a place go now (unless a flush is already on its way).
      if (pending.length > 0 && !scheduled) flush();
    }
  }

  /** Running batches that still hold a place. */
  function holding(): number {
    if (!Number.isFinite(maxInFlight)) return 0;
    const since = performance.now() - patienceMs;
    let count = 0;
    for (const { started } of running) if (started > since) count++;
    return count;
  }

  function flush() {
    scheduled = false;
    let places = maxInFlight - holding();
    while (pending.length > 0 && places > 0) {
      void runBatch(pending.splice(0, maxBatch));
      places--;
    }
    // No place: the next batch to end starts the rest, or, if none ends within the patience, a timer does.
    if (pending.length > 0 && retry === undefined) {
      retry = setTimeout(() => {
        retry = undefined;
        if (pending.length > 0 && !scheduled) flush();
      }, patienceMs);
      retry.unref?.();
    }
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      if (pending.length === 0 && !scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      pending.push({ item, resolve, reject });
    });
}
