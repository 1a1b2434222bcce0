import type { Actor } from '../common/actor.js';
import type { AuditRecord } from '../common/audit.js';
import type { Clock } from '../common/clock.js';
import { ValidationError } from '../common/errors.js';
import { pageOffset } from '../common/pagination.js';
import { AUDIT_CURSOR_MESSAGE, type AuditEvent, type AuditList, type ListAuditQuery } from './audit-schemas.js';
import type { AuditStore } from './audit-store.js';

/** Rows one retention round deletes, and rounds per run: bounded work, off the request path. */
export const PRUNE_BATCH = 1000;
export const PRUNE_ROUNDS = 20;

export interface AuditServiceDeps {
  audit: AuditStore;
  clock: Clock;
  /** Days an event is kept; 0 keeps them forever. */
  retentionDays: number;
}

export const toAuditEvent = (r: AuditRecord): AuditEvent => ({
  seq: r.seq,
  id: r.id,
  at: r.at,
  object_type: r.objectType,
  object_id: r.objectId,
  object_handle: r.objectHandle,
  action: r.action,
  surface: r.surface,
  key_id: r.keyId,
  integration: r.integration,
  client_name: r.clientName,
  client_version: r.clientVersion,
  hash_before: r.hashBefore,
  hash_after: r.hashAfter,
});

export function createAuditService({ audit, clock, retentionDays }: AuditServiceDeps) {
  return {
    /** The actor's own trail, newest first; `next_cursor` continues with older events. */
    async list(actor: Actor, q: ListAuditQuery): Promise<AuditList> {
      // The route's schema parsed the query; the bounds are checked again here, whoever calls.
      pageOffset({ page: 1, per_page: q.per_page });
      if (q.cursor !== undefined && !(Number.isSafeInteger(q.cursor) && q.cursor >= 0)) {
        throw new ValidationError({ cursor: AUDIT_CURSOR_MESSAGE });
      }
      // One more than the page, to know whether older events remain without counting the log.
      const rows = await audit.list(actor.userId, {
        objectType: q.object_type,
        objectId: q.object_id,
        action: q.action,
        surface: q.surface,
        keyId: q.key_id,
        since: q.since,
        until: q.until,
        beforeSeq: q.cursor,
        limit: q.per_page + 1,
      });
      const page = rows.slice(0, q.per_page);
      const last = page[page.length - 1];
      return {
        events: page.map(toAuditEvent),
        per_page: q.per_page,
        next_cursor: rows.length > q.per_page && last ? String(last.seq) : null,
      };
    },

    /**
     * Retention: deletes events older than `retentionDays`, at most PRUNE_BATCH a statement and
     * PRUNE_ROUNDS statements a run (the next run continues). Returns how many went.
     */
    async prune(): Promise<number> {
      if (retentionDays <= 0) return 0;
      const before = new Date(clock.now().getTime() - retentionDays * 86_400_000).toISOString();
      let total = 0;
      for (let round = 0; round < PRUNE_ROUNDS; round++) {
        const gone = await audit.prune(before, PRUNE_BATCH);
        total += gone;
        if (gone < PRUNE_BATCH) break;
      }
      return total;
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
