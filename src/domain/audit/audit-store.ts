import type { AuditAction, AuditObjectType, AuditSurface } from '../../contract/index.js';
import type { AuditRecord } from '../common/audit.js';

/** A filtered window of one user's audit trail. */
export interface AuditQuery {
  objectType?: AuditObjectType | undefined;
  objectId?: string | undefined;
  action?: AuditAction | undefined;
  surface?: AuditSurface | undefined;
  keyId?: string | undefined;
  /** ISO times: `since` ≤ at < `until`. */
  since?: string | undefined;
  until?: string | undefined;
  /** Newest first, older than this seq (the list's cursor). */
  beforeSeq?: number | undefined;
  /** Oldest first, newer than this seq (following the log, e.g. an outbox reader). */
  afterSeq?: number | undefined;
  limit: number;
}

/** Reads and retention of the trail; writes go through storage's `appendAudit`, inside each change. */
export interface AuditStore {
  list(userId: string, query: AuditQuery): Promise<AuditRecord[]>;
  /** Deletes at most `limit` events older than `before`; returns how many went. */
  prune(before: string, limit: number): Promise<number>;
}
