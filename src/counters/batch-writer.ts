/**
 * Buffers items in memory, merging those with the same key, and persists them in one batch every
 * `intervalMs` (and on `flush`/`close`), so that no request waits on a database write. A failed batch
 * is merged back and retried with the next one.
 */
export interface BatchWriter<T> {
  add(item: T): void;
  /** Buffered, unwritten items (read-only view). */
  buffered(): IterableIterator<T>;
  flush(): Promise<void>;
  /** Stops the timer and flushes what is left. */
  close(): Promise<void>;
}

export interface BatchWriterOptions<T> {
  key: (item: T) => string;
  /** Folds `next` into `existing` (mutating `existing`). */
  merge: (existing: T, next: T) => void;
  persist: (items: T[]) => Promise<void>;
  intervalMs: number;
  onError: (error: unknown) => void;
}

export function createBatchWriter<T>({
  key,
  merge,
  persist,
  intervalMs,
  onError,
}: BatchWriterOptions<T>): BatchWriter<T> {
  let buffer = new Map<string, T>();
  let flushing: Promise<void> | undefined;

  const timer = setInterval(() => {
    void flush().catch(onError);
  }, intervalMs);
  timer.unref();

  function add(into: Map<string, T>, item: T) {
    const id = key(item);
    const existing = into.get(id);
    if (existing === undefined) into.set(id, { ...item });
    else merge(existing, item);
  }

  async function flushOnce(): Promise<void> {
    if (buffer.size === 0) return;
    const batch = buffer;
    buffer = new Map();
    try {
      await persist([...batch.values()]);
    } catch (error) {
      for (const item of batch.values()) add(buffer, item);
      throw error;
    }
  }

  function flush(): Promise<void> {
    // One flush at a time; a caller arriving during one waits for it and then flushes what came since.
    const run = (flushing ?? Promise.resolve()).catch(() => undefined).then(flushOnce);
    // The tracking promise must not reject: the caller handles `run`'s failure, and a second rejected
    // promise nobody awaits would be an unhandled rejection (which terminates the process on Node ≥ 15).
    const tracked: Promise<void> = run
      .catch(() => undefined)
      .then(() => {
        if (flushing === tracked) flushing = undefined;
      });
    flushing = tracked;
    return run;
  }

  return {
    add: (item) => add(buffer, item),
    buffered: () => buffer.values(),
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
