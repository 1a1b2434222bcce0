import type { Integration } from '../accounts/integrations.js';

/** Who is calling. Every service call takes one; every store query is scoped by `userId`. */
export interface Actor {
  readonly userId: string;
  /** Integrations of the API key in use; a dashboard session holds all of them. */
  readonly integrations: ReadonlySet<Integration>;
  readonly via: 'rest' | 'mcp' | 'session' | 'operator';
  readonly keyId?: string;
  /** Set on dashboard sessions; an actor without it has no admin rights. */
  readonly role?: 'admin' | 'member';
}
