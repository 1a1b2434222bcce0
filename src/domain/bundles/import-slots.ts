import { ConflictError, UnavailableError } from '../common/errors.js';

export interface ImportLimits {
  /** Imports running at once on this instance. */
  perInstance: number;
  /** Imports one user may run at once on this instance. */
  perUser: number;
}

/**
 * Counts the imports running on this instance. Each import holds a spool file and reads it twice, so a
 * user starting many at once (or many users) could fill the disk and occupy the database; past the caps a
 * new one is refused before its body is read: 409 `conflict` for the user's own cap (their own imports are
 * in the way), 503 `service_unavailable` with Retry-After for the instance's (nothing they did).
 */
export function createImportSlots(limits: ImportLimits) {
  let running = 0;
  const byUser = new Map<string, number>();
  return {
    /** Takes a slot or throws; the returned function gives it back, once, however often it is called. */
    acquire(userId: string): () => void {
      const mine = byUser.get(userId) ?? 0;
      if (mine >= limits.perUser) {
        throw new ConflictError(
          limits.perUser === 1
            ? 'An import of yours is already running; wait for it to finish'
            : `${mine} imports of yours are already running (at most ${limits.perUser} at once); wait for one to finish`,
        );
      }
      if (running >= limits.perInstance) {
        throw new UnavailableError(
          `Too many imports are running on this server (at most ${limits.perInstance} at once); retry shortly`,
          10,
        );
      }
      running++;
      byUser.set(userId, mine + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        running--;
        const left = (byUser.get(userId) ?? 1) - 1;
        if (left === 0) byUser.delete(userId);
        else byUser.set(userId, left);
      };
    },
    /** Imports running now (for tests and logs). */
    running: () => running,
  };
}

export type ImportSlots = ReturnType<typeof createImportSlots>;
