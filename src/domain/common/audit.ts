import type { AuditAction, AuditObjectType, AuditSurface, Integration } from '../../contract/index.js';
import type { AccountActor } from '../accounts/account-actor.js';
import { sha256Hex } from './digest.js';

/**
 * The audit trail (issue 19): who changed what, where from. Every store write that changes a user's object
 * takes the change's `ChangeOrigin` and appends one `AuditEntry` per changed object in the same
 * transaction as the change (storage's `appendAudit`), so a change and its record commit or fail together.
 * The table is an ordered event log (`seq` only grows): the outbox that webhooks read.
 */

/** Where a change came from: the identity of the caller, as the transports established it. */
export interface ChangeOrigin {
  readonly surface: AuditSurface;
  /** The API key used (REST, MCP, remote CLI); null for a dashboard session or an operator command. */
  readonly keyId: string | null;
  /** The key's integration the request was admitted under (e.g. `cli`, `mcp_server`). */
  readonly integration: Integration | null;
  /** What the client says it is (MCP clientInfo, the CLI's User-Agent); self-reported, for display. */
  readonly clientName: string | null;
  readonly clientVersion: string | null;
}

/** A change as services hand it to the stores: its origin and its time (the service's clock). */
export interface Change extends ChangeOrigin {
  readonly at: string;
}

/** One change of one object: what an audit row holds (the table adds `seq` and `id`). */
export interface AuditEntry extends Change {
  readonly userId: string;
  readonly objectType: AuditObjectType;
  readonly objectId: string;
  /** A human handle when the object has one: a prompt's slug, an artifact's `project/slug`, a key's name. */
  readonly objectHandle: string | null;
  readonly action: AuditAction;
  /** SHA-256 (hex) of the object's stored content before and after; null when absent (created, deleted). */
  readonly hashBefore: string | null;
  readonly hashAfter: string | null;
}

/** A stored audit row. */
export interface AuditRecord extends AuditEntry {
  readonly seq: number;
  readonly id: string;
}

/** The facts of a change a store knows; the origin and the user come with the call. */
export type AuditFact = Omit<AuditEntry, keyof Change | 'userId'> & { userId?: string };

/** SHA-256 of an object's content as stored, or null when there is none. */
export const contentHash = (content: string | null | undefined): string | null =>
  content === null || content === undefined ? null : sha256Hex(content);

/** What the client says it is, bounded (self-reported values are stored, so they are cut to size). */
export interface ClientInfo {
  readonly name: string;
  readonly version: string | null;
}

export const CLIENT_FIELD_MAX = 100;

/** A client's self-description cut to the stored size; anything but a non-empty string is unknown. */
export function clientInfo(name: unknown, version: unknown): ClientInfo | undefined {
  if (typeof name !== 'string' || name.trim() === '') return undefined;
  const cut = (value: string) => value.trim().slice(0, CLIENT_FIELD_MAX);
  return { name: cut(name), version: typeof version === 'string' && version.trim() !== '' ? cut(version) : null };
}

const SURFACE_OF_VIA = { rest: 'rest', mcp: 'mcp', session: 'dashboard', operator: 'cli' } as const;

/**
 * The origin of a change made by `actor`. An actor carries the surface its transport set (`surface`:
 * the remote CLI over REST says `cli`, a bundle import `import`), else the one its `via` implies.
 */
export function originOf(actor: AccountActor): ChangeOrigin {
  if (actor.role === 'operator') {
    return { surface: 'cli', keyId: null, integration: null, clientName: 'cairn-operator', clientVersion: null };
  }
  return {
    surface: actor.surface ?? SURFACE_OF_VIA[actor.via],
    keyId: actor.keyId ?? null,
    integration: actor.integration ?? null,
    clientName: actor.client?.name ?? (actor.via === 'operator' ? 'cairn-operator' : null),
    clientVersion: actor.client?.version ?? null,
  };
}

/** The change `actor` makes at `now`. */
export const changeBy = (actor: AccountActor, now: Date): Change => ({ ...originOf(actor), at: now.toISOString() });

/** The same, as a bundle import: surface `import`, the caller's key and client kept. */
export const importChange = (actor: AccountActor, now: Date): Change => ({
  ...changeBy(actor, now),
  surface: 'import',
});
