import { z } from 'zod';
import {
  AUDIT_ACTIONS,
  AUDIT_OBJECT_TYPES,
  AUDIT_SURFACES,
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
} from '../../contract/index.js';
import { boundedString } from '../common/bounds.js';
import { paginationQuery } from '../common/pagination.js';

const ISO_MESSAGE = 'must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z';

/** An ISO 8601 instant as a query parameter, normalised to the stored form (`toISOString`). */
const instantParam = (name: string) =>
  boundedString(40, `${name} ${ISO_MESSAGE}`)
    .regex(
      /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/,
      `${name} ${ISO_MESSAGE}`,
    )
    .transform((value, ctx) => {
      const time = Date.parse(value);
      if (Number.isNaN(time)) {
        ctx.addIssue({ code: 'custom', message: `${name} ${ISO_MESSAGE}` });
        return z.NEVER;
      }
      return new Date(time).toISOString();
    })
    .optional()
    .meta({ description: `Only events ${name === 'since' ? 'at or after' : 'before'} this time (ISO 8601)` });

export const AUDIT_CURSOR_MESSAGE = 'cursor must be a next_cursor this server returned';

/** `GET /api/v1/audit`: filters, `per_page`, and `cursor` (the `next_cursor` of the page before). */
export const listAuditQuery = z.object({
  object_type: z.enum(AUDIT_OBJECT_TYPES).optional(),
  object_id: boundedString(100, 'object_id is at most 100 characters').optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
  surface: z.enum(AUDIT_SURFACES).optional(),
  key_id: boundedString(100, 'key_id is at most 100 characters').optional(),
  since: instantParam('since'),
  until: instantParam('until'),
  per_page: paginationQuery.per_page,
  cursor: boundedString(20, AUDIT_CURSOR_MESSAGE)
    .regex(/^\d{1,15}$/, AUDIT_CURSOR_MESSAGE)
    .transform(Number)
    .optional()
    .meta({ description: 'Continue at the `next_cursor` of an earlier answer (older events)' }),
});
export type ListAuditQuery = z.output<typeof listAuditQuery>;
export type ListAuditParams = z.input<typeof listAuditQuery>;

export const auditEventSchema = z.object({
  seq: z.number().int().meta({ description: 'Position in the log: only grows, never reused' }),
  id: z.string(),
  at: z.string().meta({ format: 'date-time' }),
  object_type: z.enum(AUDIT_OBJECT_TYPES),
  object_id: z.string(),
  object_handle: z.string().nullable().meta({ description: 'slug, project/slug or key name, when the object has one' }),
  action: z.enum(AUDIT_ACTIONS),
  surface: z.enum(AUDIT_SURFACES),
  key_id: z.string().nullable(),
  integration: z.string().nullable(),
  client_name: z.string().nullable(),
  client_version: z.string().nullable(),
  hash_before: z.string().nullable().meta({ description: 'SHA-256 (hex) of the stored content before the change' }),
  hash_after: z.string().nullable().meta({ description: 'SHA-256 (hex) of the stored content after the change' }),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;

export const auditListSchema = z.object({
  events: z.array(auditEventSchema),
  per_page: z.number().int(),
  next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for older events; null at the end' }),
});
export type AuditList = z.infer<typeof auditListSchema>;

export { DEFAULT_PER_PAGE, MAX_PER_PAGE };
