import type { Memory } from './memory-schemas.js';
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
  };
}
