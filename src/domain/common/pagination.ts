import { z } from 'zod';
import {
  BUDGET_DEFAULT_CHARS,
  BUDGET_MAX_CHARS,
  BUDGET_MIN_CHARS,
  CURSOR_MAX,
  DEFAULT_PER_PAGE,
  MAX_PAGE,
  MAX_PER_PAGE,
} from '../../contract/index.js';
import { boundedArray, boundedString } from './bounds.js';
import { type FieldErrors, ValidationError } from './errors.js';

/**
 * Pagination shared by every list (api-decisions §1): 1 ≤ page ≤ 10,000 (default 1), 1 ≤ per_page ≤ 100
 * (default 20). The page bound keeps every OFFSET below a million rows (10,000 × 100), so no request can
 * ask the database to skip an unbounded number of rows.
 */
export { MAX_PAGE, MAX_PER_PAGE };

const rangeMessage = (name: string, min: number, max: number) => `${name} must be between ${min} and ${max}`;

const integerParam = <F extends number | undefined>(name: string, min: number, max: number, fallback: F) =>
  // Bounded first: a value this long cannot be in range, whatever its characters.
  boundedString(20, rangeMessage(name, min, max))
    .optional()
    .transform((raw, ctx): number | F => {
      if (raw === undefined || raw === '') return fallback;
      // One linear test; a number too long to be in range is out of range, not "not an integer".
      if (!/^\d+$/.test(raw)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an integer` });
        return z.NEVER;
      }
      const value = raw.length > 9 ? Number.POSITIVE_INFINITY : Number(raw);
      if (value < min || value > max) {
        ctx.addIssue({ code: 'custom', message: rangeMessage(name, min, max) });
        return z.NEVER;
      }
      return value;
    })
    .meta({ description: `Integer ${min}–${max}${fallback === undefined ? '' : `; default ${fallback}`}` });

export const paginationQuery = {
  page: integerParam('page', 1, MAX_PAGE, 1),
  per_page: integerParam('per_page', 1, MAX_PER_PAGE, DEFAULT_PER_PAGE),
};

export interface PageRequest {
  page: number;
  per_page: number;
}

export const CURSOR_MESSAGES = {
  invalid: 'cursor must be a next_cursor this server returned',
  withPage: 'Give either page or cursor, not both',
} as const;

/**
 * `cursor`: a `next_cursor` of an earlier answer, to continue where that page stopped (api.md, "Budgets").
 * Cursors are positions in the list as decimal text, at most CURSOR_MAX; clients must not build them.
 */
export const cursorSchema = boundedString(20, CURSOR_MESSAGES.invalid)
  .regex(/^\d{1,6}$/, CURSOR_MESSAGES.invalid)
  .transform(Number)
  .refine((offset) => offset <= CURSOR_MAX, CURSOR_MESSAGES.invalid);

/** `max_chars`: the answer's budget in characters of JSON text (budget.ts); absent = no budget (REST lists). */
export const maxCharsParam = integerParam('max_chars', BUDGET_MIN_CHARS, BUDGET_MAX_CHARS, undefined)
  .optional()
  .meta({
    description: `Budget: the answer is at most this many characters of JSON (${BUDGET_MIN_CHARS}–${BUDGET_MAX_CHARS}); long items come back as previews (\`truncated: true\`) and \`next_cursor\` continues where the page stopped. Absent: no budget`,
  });

/** `max_chars` where an answer always has a budget (the context block): BUDGET_DEFAULT_CHARS when absent. */
export const defaultedMaxCharsParam = integerParam(
  'max_chars',
  BUDGET_MIN_CHARS,
  BUDGET_MAX_CHARS,
  BUDGET_DEFAULT_CHARS,
).meta({
  description: `Budget: the answer is at most this many characters of JSON (${BUDGET_MIN_CHARS}–${BUDGET_MAX_CHARS}, default ${BUDGET_DEFAULT_CHARS})`,
});

/** The query parameters every budgeted list takes: pages, or a cursor, and a budget. */
export const budgetedListQuery = {
  ...paginationQuery,
  cursor: cursorSchema.optional().meta({
    description: 'Continue at the `next_cursor` of an earlier answer (instead of `page`)',
  }),
  max_chars: maxCharsParam,
};

/** A budgeted list's query as the services read it. */
export interface ListWindowQuery extends PageRequest {
  cursor?: number | undefined;
  max_chars?: number | undefined;
}

/** A cursor and a page other than the first are two answers to "where": refused (on the `cursor` field). */
export function checkCursorWithPage(query: { page: number; cursor?: number | undefined }, ctx: z.RefinementCtx) {
  if (query.cursor !== undefined && query.page !== 1) {
    ctx.addIssue({ code: 'custom', path: ['cursor'], message: CURSOR_MESSAGES.withPage });
  }
}

/**
 * Where a budgeted list starts (its cursor, else its page) and the `page` its answer reports: with a cursor,
 * the page that position falls on at this `per_page`.
 */
export function listWindow(query: ListWindowQuery): { offset: number; page: number } {
  if (query.cursor === undefined) return { offset: pageOffset(query), page: query.page };
  if (!Number.isInteger(query.cursor) || query.cursor < 0 || query.cursor > CURSOR_MAX) {
    throw new ValidationError({ cursor: CURSOR_MESSAGES.invalid });
  }
  pageOffset({ page: 1, per_page: query.per_page });
  return { offset: query.cursor, page: Math.floor(query.cursor / query.per_page) + 1 };
}

/**
 * A tool's window (`cursor`, `limit`) checked by the domain, whoever sent it: the cursor a position this server
 * hands out, the limit 1–`maxLimit`. Returns the offset to start at.
 */
export function toolWindow(cursor: number | undefined, limit: number, maxLimit: number = MAX_PER_PAGE): number {
  const details: FieldErrors = {};
  if (cursor !== undefined && (!Number.isInteger(cursor) || cursor < 0 || cursor > CURSOR_MAX)) {
    details.cursor = CURSOR_MESSAGES.invalid;
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) details.limit = rangeMessage('limit', 1, maxLimit);
  if (Object.keys(details).length > 0) throw new ValidationError(details);
  return cursor ?? 0;
}

export interface Page<T> {
  items: T[];
  total: number;
}

/**
 * The rows a page skips. Checks the bounds itself, whatever the caller (MCP cursors become pages too), with
 * the schemas' messages.
 */
export function pageOffset({ page, per_page }: PageRequest): number {
  const details: FieldErrors = {};
  if (!Number.isInteger(page) || page < 1 || page > MAX_PAGE) details.page = rangeMessage('page', 1, MAX_PAGE);
  if (!Number.isInteger(per_page) || per_page < 1 || per_page > MAX_PER_PAGE) {
    details.per_page = rangeMessage('per_page', 1, MAX_PER_PAGE);
  }
  if (Object.keys(details).length > 0) throw new ValidationError(details);
  return (page - 1) * per_page;
}

/**
 * A query parameter that may be repeated (`?label=a&label=b`), normalised to an array of at most `max`
 * values (every one of them must match, so more than the items can hold never matches anything).
 */
export const repeatableParam = (item: z.ZodType<string, string>, max: number, name: string) =>
  z
    .union([item, boundedArray(item, max, `At most ${max} ${name} values`)])
    .optional()
    .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]));

/**
 * List cursors (MCP `prompts/list`, `resources/list`) are the offset of the next item as decimal text, at
 * most 9 digits so every one is a safe integer. The offset (0 without a cursor), or undefined for a cursor
 * this server never hands out.
 */
export function cursorOffset(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return 0;
  return /^\d{1,9}$/.test(cursor) ? Number(cursor) : undefined;
}

/** The cursor after a page of `size` items at `offset`, when the list holds more than that. */
export const nextCursor = (offset: number, size: number, total: number): string | undefined =>
  offset + size < total ? String(offset + size) : undefined;
