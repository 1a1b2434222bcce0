import type { z } from 'zod';
import { measureInput } from './bounds.js';
import { type FieldErrors, ValidationError } from './errors.js';

/** Read-only or immutable fields get a clearer message than "Unknown field" when sent. */
export type UnknownFieldMessages = Record<string, string>;

const unknownFieldMessages = new WeakMap<z.ZodType, UnknownFieldMessages>();

/**
 * Attaches messages for fields a schema refuses (e.g. `slug` on update), so every surface that
 * validates with this schema reports them the same way.
 */
export function withUnknownFieldMessages<S extends z.ZodType>(schema: S, messages: UnknownFieldMessages): S {
  unknownFieldMessages.set(schema, messages);
  return schema;
}

export const unknownFieldMessagesOf = (schema: z.ZodType): UnknownFieldMessages =>
  unknownFieldMessages.get(schema) ?? {};

/**
 * Zod issues → `details` keyed by dotted path (`metadata.priority`, `labels.3`); each unknown key of a
 * strict object is reported under its own path.
 */
export function issuesToDetails(
  issues: readonly z.core.$ZodIssue[],
  unknownMessages: UnknownFieldMessages = {},
): FieldErrors {
  // No prototype: a field named `constructor`, `toString` or `__proto__` is a key like any other.
  const details: FieldErrors = Object.create(null);
  for (const issue of issues) {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...base, key].join('.');
        details[path] ??= Object.hasOwn(unknownMessages, path) ? (unknownMessages[path] as string) : 'Unknown field';
      }
      continue;
    }
    const path = base.join('.') || 'body';
    // A record key that fails its own schema: zod says "Invalid key in record"; the key's rule says why.
    const reason = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    details[path] ??= reason;
  }
  return details;
}

export type CheckedInput<T> = { success: true; data: T } | { success: false; details: FieldErrors };

/**
 * Every surface's one way to validate input: the whole-input budget first (entries, nesting), then the
 * schema, whose strings and arrays check their own bounds before anything else (bounds.ts).
 */
export function checkInput<S extends z.ZodType>(schema: S, input: unknown, root = 'body'): CheckedInput<z.output<S>> {
  const { budget, text } = measureInput(input, root);
  if (budget) return { success: false, details: budget };
  const result = schema.safeParse(input);
  if (result.success) return text ? { success: false, details: text } : { success: true, data: result.data };
  // Text problems (U+0000) join the schema's, which win on the same field: one answer names every field.
  const details = issuesToDetails(result.error.issues, unknownFieldMessagesOf(schema));
  return { success: false, details: text ? Object.assign(Object.create(null), text, details) : details };
}

/** Parses service input; invalid input becomes a ValidationError naming every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = checkInput(schema, input);
  if (result.success) return result.data;
  throw new ValidationError(result.details);
}
