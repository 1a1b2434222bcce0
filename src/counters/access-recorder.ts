import type { AccessSink } from '../domain/memories/memory-service.js';
import type { MemoryAccess } from '../domain/memories/memory-store.js';
import { createBatchWriter } from './batch-writer.js';

export interface AccessRecorder extends AccessSink {
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Memory reads (`last_accessed_at`), batched: the latest access of each memory is written. */
export function createAccessRecorder(options: {
  persist: (accesses: MemoryAccess[]) => Promise<void>;
  intervalMs: number;
  onError: (error: unknown) => void;
}): AccessRecorder {
  const writer = createBatchWriter<MemoryAccess>({
    key: (access) => access.id,
    merge: (existing, next) => {
      if (next.at > existing.at) existing.at = next.at;
    },
    ...options,
  });
  return {
    record: (userId, id, at) => writer.add({ userId, id, at: at.toISOString() }),
    flush: writer.flush,
    close: writer.close,
  };
}
