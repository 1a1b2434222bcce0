import { z } from 'zod';
import type { FieldErrors } from './errors.js';
import { formatCount } from './format.js';

/**
 * Bounds checked before anything else (docs/security.md, "Bounded before parsed"). Every string and array
 * of every input schema is built from these helpers, so a value over its bound stops parsing at the bound:
 * no pattern, trim, case fold or refinement ever runs on it.
 */

/** A string whose length is checked first; over `max` aborts parsing of this value with `message`. */
export const boundedString = (max: number, message = `Must be at most ${formatCount(max)} characters`) =>
  z.string().max(max, { abort: true, message });

/**
 * A string matching a linear `pattern`, checked only once the length bound has passed (a pattern never
 * sees an over-long value).
 */
export const patternString = (max: number, maxMessage: string, pattern: RegExp, patternMessage: string) =>
  boundedString(max, maxMessage).regex(pattern, patternMessage);

/** An array whose length is checked (zod compares the length before it parses any item). */
export const boundedArray = <T extends z.ZodType>(item: T, max: number, message = `At most ${max} items`) =>
  z.array(item).max(max, { abort: true, message });

/**
 * The whole-input budget, applied before a schema runs: objects and arrays as parsed JSON can be large
 * (a 1 MiB body holds ~150,000 keys) and a record schema spends about a microsecond per key, so the count
 * of entries in any one object or array, the total count and the nesting are bounded first. Legitimate
 * inputs are far below: metadata is at most 16 KiB (fewer than 3,000 keys), a prompt has at most 100 variables.
 */
export const INPUT_MAX_ENTRIES = 5_000;
export const INPUT_MAX_TOTAL_ENTRIES = 50_000;
export const INPUT_MAX_DEPTH = 64;

/**
 * Text never holds U+0000: PostgreSQL cannot store it (in text or jsonb), so both databases refuse it alike,
 * checked here for every string and key of every input.
 */
const NUL = '\u0000';
const NUL_MESSAGE = 'Must not contain the NUL character (U+0000)';

export interface InputMeasure {
  /** The first budget exceeded (entries, total, nesting): the input is not looked at any further. */
  budget: FieldErrors | null;
  /** Every string or key holding U+0000, by path (only when no budget was exceeded). */
  text: FieldErrors | null;
}

/**
 * Measures `value` once: budgets first (they stop the walk), and every string holding U+0000. Without
 * `budgets`, only the text is checked (for input bounded otherwise, e.g. an import line by its byte length).
 */
export function measureInput(value: unknown, root = 'body', budgets = true): InputMeasure {
  const nul: FieldErrors = Object.create(null);
  let flagged = 0;
  // Paths are parent links, spelled out only when reported: copying a path per level would cost the
  // square of the nesting (a 200,000-deep import line took over a minute).
  const spell = (at: PathLink | null, last: string) => {
    const parts = [last];
    for (let link = at; link; link = link.parent) parts.push(link.key);
    return parts.reverse().join('.');
  };
  const flag = (at: PathLink | null, key: string) => {
    if (flagged++ < MAX_TEXT_PROBLEMS) nul[spell(at, key)] = NUL_MESSAGE;
  };
  const over = (budget: FieldErrors): InputMeasure => ({ budget, text: null });
  if (typeof value === 'string') return { budget: null, text: value.includes(NUL) ? { [root]: NUL_MESSAGE } : null };
  if (typeof value !== 'object' || value === null) return { budget: null, text: null };
  let total = 0;
  const stack: Array<[object, PathLink | null, number]> = [[value, null, 1]];
  while (stack.length > 0) {
    const [current, at, depth] = stack.pop() as [object, PathLink | null, number];
    // Named by the top-level field that holds it: the full path would be as deep as the nesting.
    if (budgets && depth > INPUT_MAX_DEPTH) {
      let top = at;
      while (top?.parent) top = top.parent;
      return over({ [top?.key ?? root]: `Value is nested more than ${INPUT_MAX_DEPTH} levels deep` });
    }
    const keys = Array.isArray(current) ? null : Object.keys(current);
    const count = keys ? keys.length : (current as unknown[]).length;
    if (budgets && count > INPUT_MAX_ENTRIES) {
      return over({
        [at ? spell(at.parent, at.key) : root]:
          `At most ${formatCount(INPUT_MAX_ENTRIES)} entries in one object or array`,
      });
    }
    total += count;
    if (budgets && total > INPUT_MAX_TOTAL_ENTRIES) {
      return over({ [root]: `At most ${formatCount(INPUT_MAX_TOTAL_ENTRIES)} fields and items in all` });
    }
    if (keys) {
      for (const key of keys) {
        const child = (current as Record<string, unknown>)[key];
        if (key.includes(NUL) || (typeof child === 'string' && child.includes(NUL))) flag(at, key);
        if (typeof child === 'object' && child !== null) stack.push([child, { parent: at, key }, depth + 1]);
      }
    } else {
      const items = current as unknown[];
      for (let i = 0; i < items.length; i++) {
        const child = items[i];
        if (typeof child === 'string' && child.includes(NUL)) flag(at, String(i));
        if (typeof child === 'object' && child !== null) stack.push([child, { parent: at, key: String(i) }, depth + 1]);
      }
    }
  }
  return { budget: null, text: flagged > 0 ? nul : null };
}

/** A step of a path, linked to its parent. */
interface PathLink {
  parent: PathLink | null;
  key: string;
}

/** Fields named for U+0000 at most (each spelled out costs its depth). */
const MAX_TEXT_PROBLEMS = 20;
