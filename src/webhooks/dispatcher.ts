import { randomBytes } from 'node:crypto';
import type { Clock } from '../domain/common/clock.js';
import { type RetrySchedule, retryDelayMs } from '../domain/webhooks/webhook-backoff.js';
import {
  ATTEMPT_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
} from '../domain/webhooks/webhook-signature.js';
import type { ClaimedDelivery, WebhookStore } from '../domain/webhooks/webhook-store.js';
import type { Send } from './http-sender.js';

const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 1000;

export interface DispatcherOptions {
  store: WebhookStore;
  send: Send;
  clock: Clock;
  schedule: RetrySchedule;
  /** Consecutive failed attempts after which an endpoint is disabled. */
  disableAfter: number;
  pollIntervalMs: number;
  /** Deliveries claimed (and sent in parallel) at a time. */
  batchSize: number;
  /** How long a claim holds: longer than a send can take, so no two instances ever hold one delivery. */
  leaseMs: number;
  /** Settled deliveries and log rows older than this are deleted (checked at most hourly). */
  retentionMs: number;
  /** [0, 1): the jitter of the retry delays (tests fix it). */
  random?: () => number;
  onError?: (error: unknown) => void;
}

/**
 * The delivery worker (docs/webhooks.md): polls the outbox, leases due deliveries (an atomic claim, so
 * instances never hold one delivery at once), sends each signed, and settles it (log, retry with backoff,
 * give up, disable the endpoint after repeated failures). A crash leaves at most a lease that expires:
 * the delivery is claimed again, so none is lost (at least once; receivers dedupe by event id).
 */
export function createDispatcher(options: DispatcherOptions) {
  const owner = `dsp_${randomBytes(8).toString('hex')}`;
  const random = options.random ?? Math.random;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let started = false;
  let stopped = false;
  let again = false;
  let prunedAt = Number.NEGATIVE_INFINITY;
  // Aborts the sends in flight when the worker stops (shutdown): they are released, not counted as failures.
  const stopping = new AbortController();

  async function deliver(claimed: ClaimedDelivery): Promise<void> {
    const now = options.clock.now();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Cairn-Webhooks/1',
      [EVENT_ID_HEADER]: claimed.eventId,
      [EVENT_TYPE_HEADER]: claimed.eventType,
      [ATTEMPT_HEADER]: String(claimed.attempt),
      [SIGNATURE_HEADER]: signatureHeader(claimed.secret, Math.floor(now.getTime() / 1000), claimed.payload),
    };
    const result = await options.send(claimed.url, headers, claimed.payload, stopping.signal);
    if (stopping.signal.aborted) {
      await options.store.release(claimed, owner);
      return;
    }
    const at = options.clock.now();
    const ok = result.error === null && result.statusCode !== null && result.statusCode < 300;
    const retry = !ok && claimed.attempt < options.schedule.maxAttempts;
    await options.store.settle(
      claimed,
      owner,
      {
        outcome: ok ? 'succeeded' : 'failed',
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: ok ? null : (result.error ?? 'failed'),
        at: at.toISOString(),
        ...(retry && {
          retryAt: new Date(at.getTime() + retryDelayMs(options.schedule, claimed.attempt, random())).toISOString(),
        }),
      },
      options.disableAfter,
    );
  }

  /** One round: claim what is due now and deliver it. Returns how many deliveries were attempted. */
  async function round(): Promise<number> {
    const now = options.clock.now();
    const iso = now.toISOString();
    if (now.getTime() - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = now.getTime();
      const before = new Date(now.getTime() - options.retentionMs).toISOString();
      while ((await options.store.prune(before, PRUNE_BATCH)) >= PRUNE_BATCH && !stopped) {
        // more to go: another bounded batch
      }
    }
    // A read first: an idle outbox costs one indexed read per poll, never a write.
    if (!(await options.store.hasDue(iso))) return 0;
    const claimed = await options.store.claim(
      owner,
      iso,
      new Date(now.getTime() + options.leaseMs).toISOString(),
      options.batchSize,
    );
    await Promise.all(claimed.map((delivery) => deliver(delivery).catch((error) => options.onError?.(error))));
    return claimed.length;
  }

  function runOnce(): Promise<number> {
    if (running !== undefined) return running;
    running = round().finally(() => {
      running = undefined;
    });
    return running;
  }

  function schedule(delayMs: number) {
    if (stopped || !started) return;
    clearTimeout(timer);
    timer = setTimeout(tick, delayMs);
    timer.unref();
  }

  function tick() {
    timer = undefined;
    runOnce().then(
      (count) => {
        const more = count >= options.batchSize || again;
        again = false;
        schedule(more ? 0 : options.pollIntervalMs);
      },
      (error) => {
        options.onError?.(error);
        schedule(options.pollIntervalMs);
      },
    );
  }

  return {
    owner,
    /** Starts polling (the container does, unless WEBHOOK_WORKER=false). */
    start() {
      if (started || stopped) return;
      started = true;
      schedule(0);
    },
    /** Work was queued by this instance: look now rather than at the next poll. */
    wake() {
      if (running !== undefined) again = true;
      else if (started && !stopped) schedule(0);
    },
    /** One round by hand (tests drive the worker this way, with their own clock). */
    runOnce,
    /**
     * Stops polling; sends in flight are aborted and their deliveries released (due again at once, for the
     * next instance or start), so shutdown never waits for a slow receiver.
     */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      stopping.abort();
      if (running !== undefined) await running.catch(() => undefined);
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
