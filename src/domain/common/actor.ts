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
   * What the user's prompts kept in memory are checked against (prompt-service.ts), taken when the request
   * was admitted: the database's change stamp where storage offers one (SQLite: any commit changes it), else
   * the user's prompt stamp read with the key (PostgreSQL: any write of the user's prompts changes it).
   * Absent: the prompt service reads the database's change stamp itself, or the database.
   */
  readonly promptsStamp?: number;
  /** Set on dashboard sessions; an actor without it has no admin rights. */
  readonly role?: 'admin' | 'member';
}
