// Memory metadata: the known keys have their own fields; the rest is edited as JSON.
import { KNOWN_METADATA_KEYS, PRIORITIES, type Priority } from '../../src/contract';

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export interface MetadataFields {
  category: string;
  priority: '' | Priority;
  tags: string[];
  /** The other keys, as given. */
  other: JsonObject;
}

export function splitMetadata(metadata: JsonObject): MetadataFields {
  const { category, priority, tags, ...other } = metadata;
  return {
    category: typeof category === 'string' ? category : '',
    priority: PRIORITIES.find((known) => known === priority) ?? '',
    tags: Array.isArray(tags) ? tags.map(String) : [],
    other,
  };
}

export function joinMetadata(fields: MetadataFields): JsonObject {
  return {
    ...fields.other,
    ...(fields.category && { category: fields.category }),
    ...(fields.priority && { priority: fields.priority }),
    ...(fields.tags.length > 0 && { tags: fields.tags }),
  };
}

/** Parses the "other metadata" text: empty is {}, else a JSON object without the known keys. */
export function parseOther(text: string): { value: JsonObject } | { problem: string } {
  if (text.trim() === '') return { value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `This is not valid JSON: ${error instanceof Error ? error.message : 'parse error'}.` };
  }
  if (!isObject(value)) return { problem: 'Other metadata must be a JSON object, like {"owner": "me"}.' };
  const known = KNOWN_METADATA_KEYS.filter((key) => key in value);
  if (known.length > 0) return { problem: `Use the fields above for ${known.join(', ')}, not the JSON.` };
  return { value };
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The JSON Merge Patch (RFC 7396) that turns `from` into `to`: removed keys become null, changed nested
 * objects are patched recursively, other changed values replace. (A null inside `to` cannot be expressed and
 * would remove the key; that is the nature of merge patches.)
 */
export function mergePatch(from: JsonObject, to: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(from)) if (!(key in to)) patch[key] = null;
  for (const [key, value] of Object.entries(to)) {
    const before = from[key];
    if (isObject(before) && isObject(value)) {
      const nested = mergePatch(before, value);
      if (Object.keys(nested).length > 0) patch[key] = nested;
    } else if (!(key in from) || !deepEqual(before, value)) {
      patch[key] = value;
    }
  }
  return patch;
}
