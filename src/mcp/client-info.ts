import { type ClientInfo, clientInfo } from '../domain/common/audit.js';

/**
 * Which MCP client sends a request, for the audit trail ("when known"; self-reported, it grants nothing).
 *
 * - 2026-07-28 requests carry it in every request's envelope: `params._meta["io.modelcontextprotocol/clientInfo"]`.
 * - 2025-era clients send `clientInfo` only in `initialize`; on a stateless server their later calls carry
 *   none. So the last `initialize` seen per API key is remembered here (bounded, in this process) and
 *   stands for that key's later calls. Behind several instances a call can reach one that did not see the
 *   `initialize`: then the client is unknown (null), never wrong for another key.
 */
const ENVELOPE_KEY = 'io.modelcontextprotocol/clientInfo';
const REMEMBERED_MAX = 10_000;

type Message = { method?: unknown; params?: { clientInfo?: unknown; _meta?: Record<string, unknown> } };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function infoOf(value: unknown): ClientInfo | undefined {
  return isObject(value) ? clientInfo(value.name, value.version) : undefined;
}

export class McpClients {
  private readonly byKey = new Map<string, ClientInfo>();

  /** The client of a request body (one message or a batch), remembering an `initialize`'s for its key. */
  of(body: unknown, keyId: string | undefined): ClientInfo | undefined {
    const messages = (Array.isArray(body) ? body : [body]).filter(isObject) as Message[];
    let found: ClientInfo | undefined;
    for (const message of messages) {
      if (!isObject(message.params)) continue;
      const fromEnvelope = isObject(message.params._meta) ? infoOf(message.params._meta[ENVELOPE_KEY]) : undefined;
      const fromInitialize = message.method === 'initialize' ? infoOf(message.params.clientInfo) : undefined;
      if (fromInitialize && keyId !== undefined) this.remember(keyId, fromInitialize);
      found ??= fromEnvelope ?? fromInitialize;
    }
    return found ?? (keyId === undefined ? undefined : this.byKey.get(keyId));
  }

  private remember(keyId: string, info: ClientInfo) {
    this.byKey.delete(keyId);
    if (this.byKey.size >= REMEMBERED_MAX) {
      const oldest = this.byKey.keys().next().value;
      if (oldest !== undefined) this.byKey.delete(oldest);
    }
    this.byKey.set(keyId, info);
  }
}
