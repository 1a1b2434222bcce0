import BetterSqlite3 from 'better-sqlite3';

/**
 * The SQL texts better-sqlite3 ran while `work` ran (each statement's `source`, as prepared), in order:
 * every statement of the process, the caller's own included. For tests of what storage sends to SQLite
 * (query plans, prepared texts).
 */
export async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const probe = new BetterSqlite3(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>;
  probe.close();
  const seen: string[] = [];
  const originals = new Map<string, unknown>();
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = proto[method] as (...args: unknown[]) => unknown;
    originals.set(method, original);
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      seen.push(this.source);
      return original.apply(this, args);
    };
  }
  try {
    await work();
  } finally {
    for (const [method, original] of originals) proto[method] = original;
  }
  return seen;
}
