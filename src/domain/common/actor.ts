import type { Integration } from '../accounts/integrations.js';

/** Who is calling. Every service call takes one; every store query is scoped by `userId`. */
export interface Actor {
  readonly userId: string;
  /** Integrations of the API key in use; a dashboard session holds all of them. */
  readonly integrations: ReadonlySet<Integration>;
  readonly via: 'rest' | 'mcp' | 'session' | 'operator';
  readonly keyId?: string;
  /**
   * The database's change stamp taken when the request was admitted (fresh-cache.ts): the request's reads
   * may be answered by cache entries at least that fresh. Absent: each cache reads the stamp itself.
   */
  readonly stamp?: number;
  /** Set on dashboard sessions; an actor without it has no admin rights. */
  readonly role?: 'admin' | 'member';
}
