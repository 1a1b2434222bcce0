import { cutText, jsonLength, type PreviewShape, partLength } from '../common/budget.js';
import type { Memory, RankedMemory } from './memory-schemas.js';
import type { MemoryRecord } from './memory-store.js';

/** A record (as the store returns it) → the API's shape. The one place memory fields are renamed for clients. */
export function toMemory(record: MemoryRecord): Memory {
  return {
    memory_id: record.id,
    text: record.text,
    project_name: record.projectName,
    metadata: record.metadata,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    last_accessed_at: record.lastAccessedAt,
    expires_at: record.expiresAt ?? null,
    pinned: record.pinned ?? false,
    superseded_by: record.supersededBy ?? null,
  };
}

/** The known keys a preview keeps when the whole metadata is too long, each while it is at most this long. */
const KNOWN_KEYS = ['category', 'priority', 'tags'] as const;
const KNOWN_KEY_ROOM = 120;

/** Metadata in a preview cut at `cut`: whole when its JSON fits, else its known keys that are short. */
export function previewMetadata(metadata: Record<string, unknown>, cut: number): Record<string, unknown> {
  if (partLength(metadata) <= cut) return metadata;
  const reduced: Record<string, unknown> = {};
  for (const key of KNOWN_KEYS) {
    const value = Object.hasOwn(metadata, key) ? metadata[key] : undefined;
    if (value === undefined) continue;
    const length = typeof value === 'object' && value !== null ? partLength(value) : jsonLength(value);
    if (length <= Math.max(cut, KNOWN_KEY_ROOM)) reduced[key] = value;
  }
  return reduced;
}

/**
 * How a memory shrinks in a budgeted answer: its text cut (budget.ts `cutText`), its metadata whole while it
 * fits the cut, else reduced to its short known keys. Its id, project, times and score stay.
 */
export const memoryPreview: PreviewShape<RankedMemory> = {
  extent: (memory) => Math.max(memory.text.length, partLength(memory.metadata)),
  preview: (memory, cut) => ({
    ...memory,
    text: cutText(memory.text, cut),
    metadata: previewMetadata(memory.metadata, cut),
    truncated: true,
  }),
};
