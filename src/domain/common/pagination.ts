import { z } from 'zod';
import { DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE } from '../../contract/index.js';
import { boundedArray, boundedString } from './bounds.js';
import { type FieldErrors, ValidationError } from './errors.js';

/**
 * Pagination shared by every list (api-decisions §1): 1 ≤ page ≤ 10,000 (default 1), 1 ≤ per_page ≤ 100
 * (default 20). The page bound keeps every OFFSET below a million rows (10,000 × 100), so no request can
 * ask the database to skip an unbounded number of rows.
 */
export { MAX_PAGE, MAX_PER_PAGE };

const rangeMessage = (name: string, min: number, max: number) => `${name} must be between ${min} and ${max}`;

const integerParam = (name: string, min: number, max: number, fallback: number) =>
  // Bounded first: a value this long cannot be in range, whatever its characters.
  boundedString(20, rangeMessage(name, min, max))
    .optional()
    .transform((raw, ctx) => {
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
    .meta({ description: `Integer ${min}–${max}; default ${fallback}` });

export const paginationQuery = {
  page: integerParam('page', 1, MAX_PAGE, 1),
  per_page: integerParam('per_page', 1, MAX_PER_PAGE, DEFAULT_PER_PAGE),
};

export interface PageRequest {
  page: number;
  per_page: number;
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
