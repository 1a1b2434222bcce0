import type { WebhookEvent } from './webhook-events.js';

/** An endpoint as stored (the secret included: it signs every delivery). */
export interface WebhookEndpointRecord {
  id: string;
  userId: string;
  url: string;
  description: string;
  secret: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  consecutiveFailures: number;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookEndpointPatch {
  url?: string;
  description?: string;
  events?: string[];
  enabled?: boolean;
  secret?: string;
  updatedAt: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveryRecord {
  seq: number;
  eventId: string;
  endpointId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  completedAt: string | null;
}

export interface WebhookAttemptRecord {
  seq: number;
  eventId: string;
  eventType: string;
  attempt: number;
  outcome: 'succeeded' | 'failed';
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  attemptedAt: string;
}

/** A delivery a dispatcher holds the lease of, with what it needs to send it. */
export interface ClaimedDelivery {
  seq: number;
  eventId: string;
  eventType: string;
  endpointId: string;
  userId: string;
  payload: string;
  /** This attempt's number (1 = first). */
  attempt: number;
  url: string;
  secret: string;
}

export interface AttemptResult {
  outcome: 'succeeded' | 'failed';
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  at: string;
  /** For a failure: when to try again; absent = give up (the delivery is `failed`). */
  retryAt?: string;
}

export interface WebhookStore {
  /** Inserts the endpoint and its subscriptions unless the user already has `maxPerUser`; false if at the limit. */
  insert(endpoint: WebhookEndpointRecord, maxPerUser: number): Promise<boolean>;
  list(userId: string): Promise<WebhookEndpointRecord[]>;
  find(userId: string, id: string): Promise<WebhookEndpointRecord | undefined>;
  /** Enabling clears the disabled reason and the failure count. */
  update(userId: string, id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpointRecord | undefined>;
  delete(userId: string, id: string): Promise<boolean>;
  /** Enqueues `event` for every enabled endpoint of its user subscribed to its type (own transaction). */
  enqueue(event: WebhookEvent): Promise<number>;
  /** Enqueues `event` for one endpoint, subscribed or not (the "send test event" action). */
  enqueueFor(endpointId: string, event: WebhookEvent, at: string): Promise<void>;
  deliveries(
    userId: string,
    endpointId: string,
    offset: number,
    limit: number,
  ): Promise<{ rows: WebhookDeliveryRecord[]; total: number }>;
  attempts(
    userId: string,
    endpointId: string,
    offset: number,
    limit: number,
  ): Promise<{ rows: WebhookAttemptRecord[]; total: number }>;

  /** Whether any delivery is due at `now` (a read; the claim is a write). */
  hasDue(now: string): Promise<boolean>;
  /** Leases up to `limit` due deliveries of enabled endpoints to `owner` until `leaseUntil`; atomic across processes. */
  claim(owner: string, now: string, leaseUntil: string, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Logs the attempt and settles the delivery (succeeded, retry at `retryAt`, or failed), and the endpoint's
   * consecutive failures: reset on success; on failure counted, and the endpoint disabled with `disableReason`
   * once they reach `disableAfter`. One transaction.
   */
  settle(claimed: ClaimedDelivery, owner: string, result: AttemptResult, disableAfter: number): Promise<void>;
  /** Deletes up to `limit` log rows and settled deliveries older than `before`; returns how many went. */
  prune(before: string, limit: number): Promise<number>;
  /** Gives a claimed delivery back unattempted (shutdown): due again at once, its attempt not counted. */
  release(claimed: ClaimedDelivery, owner: string): Promise<void>;
}
