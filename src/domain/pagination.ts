import { z } from 'zod';
import { boundedArray } from './bounds.js';

/** Pagination shared by every list (api-decisions §1): page ≥ 1 (default 1), 1 ≤ per_page ≤ 100 (default 20). */
export const MAX_PER_PAGE = 100;

const integerParam = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return fallback;
      if (!/^\d{1,9}$/.test(raw)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an integer` });
        return z.NEVER;
      }
      const value = Number(raw);
      if (value < min || value > max) {
        ctx.addIssue({
          code: 'custom',
          message:
            max === Number.MAX_SAFE_INTEGER
              ? `${name} must be at least ${min}`
              : `${name} must be between ${min} and ${max}`,
        });
        return z.NEVER;
      }
      return value;
    })
    .meta({
      description:
        max === Number.MAX_SAFE_INTEGER
          ? `Integer ≥ ${min}; default ${fallback}`
          : `Integer ${min}–${max}; default ${fallback}`,
    });

export const paginationQuery = {
  page: integerParam('page', 1, Number.MAX_SAFE_INTEGER, 1),
  per_page: integerParam('per_page', 1, MAX_PER_PAGE, 20),
};

export interface PageRequest {
  page: number;
  per_page: number;
}

export interface Page<T> {
  items: T[];
  total: number;
}

export const pageOffset = ({ page, per_page }: PageRequest): number => (page - 1) * per_page;

/**
 * A query parameter that may be repeated (`?label=a&label=b`), normalised to an array of at most `max`
 * values (every one of them must match, so more than the items can hold never matches anything).
 */
export const repeatableParam = (item: z.ZodType<string, string>, max: number, name: string) =>
  z
    .union([item, boundedArray(item, max, `At most ${max} ${name} values`)])
    .optional()
    .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]));
