import type { AuditSurface } from '../../contract/index.js';
import type { Integration } from '../accounts/integrations.js';
import type { ClientInfo } from './audit.js';

/** Who is calling. Every service call takes one; every store query is scoped by `userId`. */
export interface Actor {
  readonly userId: string;
  /** Integrations of the API key in use; a dashboard session holds all of them. */
  readonly integrations: ReadonlySet<Integration>;
  readonly via: 'rest' | 'mcp' | 'session' | 'operator';
  readonly keyId?: string;
  /** The key's integration this request was admitted under (the audit trail's `integration`). */
  readonly integration?: Integration;
  /** The surface to record changes under when `via` does not say it (the remote CLI over REST: `cli`). */
  readonly surface?: AuditSurface;
  /** What the client says it is (MCP clientInfo, the CLI's User-Agent), when it says. */
  readonly client?: ClientInfo;
  /**
   * The database's change stamp taken when the request was admitted (fresh-cache.ts): the request's reads
   * may be answered by cache entries at least that fresh. Absent: each cache reads the stamp itself.
   */
  readonly stamp?: number;
  /** Set on dashboard sessions; an actor without it has no admin rights. */
  readonly role?: 'admin' | 'member';
}
