import { z } from 'zod';
import type { Container } from '../container.js';
import type { Actor } from '../domain/common/actor.js';
import { boundedArray, boundedString, patternString } from '../domain/common/bounds.js';

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
