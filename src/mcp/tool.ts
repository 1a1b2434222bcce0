import { z } from 'zod';
import type { Container } from '../container.js';
import { BUDGET_DEFAULT_CHARS, BUDGET_MAX_CHARS, BUDGET_MIN_CHARS, CURSOR_MAX } from '../contract/index.js';
import type { Actor } from '../domain/common/actor.js';
import { boundedArray, boundedString, patternString } from '../domain/common/bounds.js';
import { cutText } from '../domain/common/budget.js';
import { cursorSchema } from '../domain/common/pagination.js';

type Services = Container['services'];

/** What a tool returns: data for `structuredContent` and a text rendering for models without it. */
export interface ToolOutput {
  structured: Record<string, unknown>;
  text: string;
}

/**
 * An MCP tool: a thin adapter that validates arguments with its input schema and makes one call to
 * the same domain services REST uses, so rules and error messages are identical.
 */
export interface ToolDefinition<I extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: z.ZodType;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
  run(services: Services, actor: Actor, args: z.output<I>): Promise<ToolOutput>;
}

export const defineTool = <I extends z.ZodType>(tool: ToolDefinition<I>): ToolDefinition =>
  tool as unknown as ToolDefinition;

export const readOnly = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
export const additive = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const;
export const overwriting = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/**
 * An array of strings, or one comma-separated string, as models send both; at most `max` items (the
 * comma form at most `max` items' worth of characters). The service validates the items.
 */
export const stringList = (item: z.ZodType<string, string>, max: number, itemMax: number) =>
  z.union([boundedArray(item, max, `At most ${max} items`), boundedString(max * (itemMax + 2))]).transform((value) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
      : value,
  );

/** An integer, also when sent as a string of digits ("10"). */
export const looseInt = (min: number, max: number) =>
  z
    .union([z.number(), patternString(20, 'Must be a whole number', /^\s*\d+\s*$/, 'Must be a whole number')])
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const json = (value: unknown) => JSON.stringify(value, null, 2);

/** `max_chars` of a tool: its answer's budget, with the default that fits common clients (docs/api.md "Budgets"). */
export const maxCharsArg = looseInt(BUDGET_MIN_CHARS, BUDGET_MAX_CHARS)
  .default(BUDGET_DEFAULT_CHARS)
  .describe(
    `Most characters the answer may take (${BUDGET_MIN_CHARS}–${BUDGET_MAX_CHARS}, default ${BUDGET_DEFAULT_CHARS}); long items come back as previews, the rest on the next page`,
  );

/** `cursor` of a tool: a `next_cursor` it answered before (as text or a number). */
export const cursorArg = z
  .union([z.number().int().min(0).max(CURSOR_MAX), cursorSchema])
  .transform(Number)
  .describe('The next_cursor of the previous answer, to get the next results');

const CLAMPED = "\n[… cut to the answer's max_chars]";

/**
 * A text rendering held to the budget its structured answer was fitted to. The renderings are built to be
 * shorter than the JSON (no keys, no escapes); this only guards that promise.
 */
export const withinBudget = (text: string, maxChars: number): string =>
  text.length <= maxChars ? text : `${cutText(text, maxChars - CLAMPED.length - 1)}${CLAMPED}`;

/** The line that tells a model how to continue a list. */
export const continueLine = (tool: string, nextCursor: string | null): string =>
  nextCursor === null ? '' : `\nMore: call ${tool} again with cursor "${nextCursor}".`;
