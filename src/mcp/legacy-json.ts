import {
  type AuthInfo,
  classifyInboundRequest,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type MessageExtraInfo,
  PROTOCOL_VERSION_META_KEY,
  parseJSONRPCMessage,
  type RequestId,
  type Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
} from '@modelcontextprotocol/server';

/** The SDK transport's limit on a JSON-RPC batch (`MAX_BATCH_SIZE`); larger ones go to it for its 400. */
const MAX_BATCH = 100;

/** One HTTP header as the SDK's `Headers.get` would read it from Node's parsed headers. */
export const headerOf = (headers: Readonly<Record<string, string | string[] | undefined>>, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** Whether a message's params carry the 2026-07-28 per-request envelope claim (the SDK's `hasEnvelopeClaim`). */
function claimsModern(message: unknown): boolean {
  const params = (message as { params?: unknown } | null)?.params;
  const meta = typeof params === 'object' && params !== null ? (params as { _meta?: unknown })._meta : undefined;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * The MCP-Protocol-Version values with which a request without an envelope claim is 2025-era traffic, by
 * the SDK's own classification, among those its transport supports.
 */
export function legacyHeaderVersions(supportedVersions: readonly string[]): ReadonlySet<string> {
  const probe = { jsonrpc: '2.0', id: 1, method: 'ping' };
  return new Set(
    supportedVersions.filter(
      (version) =>
        classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: version, body: probe }).kind === 'legacy',
    ),
  );
}

/**
 * The requests of a POST that the shared server may answer, or undefined when anything about it is not
 * the plain case: then the SDK's own routing and per-request transports serve it and give every refusal
 * and oddity their exact answer. The plain case is 2025-era traffic by the SDK's classification (no
 * envelope claim, no 2026 MCP-Protocol-Version) that its stateless JSON transport
 * (`WebStandardStreamableHTTPServerTransport`, `enableJsonResponse`) accepts and dispatches without
 * touching the server's state: an Accept naming both JSON and SSE, a JSON content type, a supported (or
 * absent) MCP-Protocol-Version, one request or a batch of at most 100 requests with distinct ids, each a
 * valid JSON-RPC request (the SDK's own schema) and none of them `initialize` (which negotiates, and so
 * writes to the server). Notifications and responses take the SDK's path too (they are answered 202 there).
 * A header value is compared as sent, so one the SDK would first trim goes the SDK's way.
 */
export function plainRequests(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: unknown,
  legacyVersions: ReadonlySet<string>,
): JSONRPCRequest[] | undefined {
  const accept = headerOf(headers, 'accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headerOf(headers, 'content-type') ?? null)) return undefined;
  const version = headerOf(headers, 'mcp-protocol-version');
  if (version !== undefined && !legacyVersions.has(version)) return undefined;
  const raw = Array.isArray(body) ? body : [body];
  if (raw.length === 0 || raw.length > MAX_BATCH) return undefined;
  const requests: JSONRPCRequest[] = [];
  const ids = new Set<RequestId>();
  for (const item of raw) {
    if (claimsModern(item)) return undefined;
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(item);
    } catch {
      return undefined;
    }
    // The schema's request variant is strict, so `method` and `id` together mean a request.
    if (!('method' in message) || !('id' in message) || message.method === 'initialize') return undefined;
    if (ids.has(message.id)) return undefined;
    ids.add(message.id);
    requests.push(message as JSONRPCRequest);
  }
  return requests;
}

/** How a request reaches the server, with the caller in `extra.authInfo`. */
type Dispatch = (request: JSONRPCRequest, extra: MessageExtraInfo) => void;

/**
 * The server's own request dispatch, behind the public path. `connect` makes the transport's `onmessage`
 * run three zod type guards per message to tell requests from responses and notifications, ~10 µs a
 * request (mostly building the errors of the two that fail), and then call the server's `_onrequest`.
 * The shared transport knows every message it hands over is a request, so it calls `_onrequest` itself —
 * private in the SDK's types, hence looked up, with the public path whenever an SDK lacks it.
 */
function requestDispatch(server: Server, transport: Transport): { dispatch: Dispatch; direct: boolean } {
  const onrequest = (server as unknown as { _onrequest?: unknown })._onrequest;
  if (typeof onrequest === 'function') return { dispatch: (onrequest as Dispatch).bind(server), direct: true };
  return { dispatch: (request, extra) => transport.onmessage?.(request, extra), direct: false };
}

interface Exchange {
  responses: Array<JSONRPCResponse | undefined>;
  waiting: number;
  resolve(responses: JSONRPCResponse[]): void;
}

/**
 * A transport that lets one long-lived server answer the plain 2025-era requests of every caller at once.
 *
 * Each message goes to the server under an id of the transport's own, unique among everything in flight,
 * so requests from different clients (which all count from 1) never meet in the server's bookkeeping,
 * and the answer goes back under the id the client sent. The caller rides in the message's `authInfo`,
 * which the handlers read from their context. Only requests reach the server: notifications (a
 * cancellation would name another caller's id) and `initialize` never do.
 */
export class SharedJsonTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  /** How requests reach the server: its `onmessage` until `sharedLegacyServer` finds the direct way. */
  dispatch: Dispatch = (request, extra) => this.onmessage?.(request, extra);
  /** The header versions of plain requests: those the server supports (it says at connect) that are 2025-era. */
  legacyVersions = legacyHeaderVersions(SUPPORTED_PROTOCOL_VERSIONS);
  private nextId = 0;
  private readonly inFlight = new Map<number, { id: RequestId; exchange: Exchange; slot: number }>();
  private closed = false;

  async start() {}

  setSupportedProtocolVersions(versions: string[]) {
    this.legacyVersions = legacyHeaderVersions(versions);
  }

  /** Hands the requests to the server and resolves with their answers, in the requests' order. */
  exchange(requests: JSONRPCRequest[], authInfo: AuthInfo): Promise<JSONRPCResponse[]> {
    if (this.closed) return Promise.reject(new Error('The MCP server is closed'));
    return new Promise((resolve) => {
      const exchange: Exchange = { responses: new Array(requests.length), waiting: requests.length, resolve };
      const tagged = requests.map((request, slot) => {
        const internal = this.nextId++;
        this.inFlight.set(internal, { id: request.id, exchange, slot });
        return { ...request, id: internal };
      });
      for (const message of tagged) this.dispatch(message, { authInfo });
    });
  }

  async send(message: JSONRPCMessage) {
    // Cairn's handlers send nothing before their result, and the stateless JSON transport drops
    // anything that is not a response, so only responses are delivered.
    if (!('id' in message) || message.id === undefined || 'method' in message) return;
    const entry = this.inFlight.get(message.id as number);
    if (!entry) return;
    this.inFlight.delete(message.id as number);
    const { exchange, slot, id } = entry;
    exchange.responses[slot] = { ...message, id } as JSONRPCResponse;
    if (--exchange.waiting === 0) exchange.resolve(exchange.responses as JSONRPCResponse[]);
  }

  /** Answers whatever is still in flight with the SDK's internal error, then lets the server go. */
  async close() {
    if (this.closed) return;
    this.closed = true;
    for (const [internal, { id, exchange, slot }] of this.inFlight) {
      this.inFlight.delete(internal);
      exchange.responses[slot] = { jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal server error' } };
      if (--exchange.waiting === 0) exchange.resolve(exchange.responses as JSONRPCResponse[]);
    }
    this.onclose?.();
  }
}

/** The shared server and its transport: `answer` is the body of the SDK's JSON response, or undefined. */
export async function sharedLegacyServer(server: Server) {
  const transport = new SharedJsonTransport();
  await server.connect(transport);
  const { dispatch, direct } = requestDispatch(server, transport);
  transport.dispatch = dispatch;
  return {
    /** Whether requests skip the public path's type guards (see `requestDispatch`). */
    direct,
    /**
     * The JSON answer to a plain 2025-era POST (see `plainRequests`), exactly as the SDK's stateless
     * JSON transport writes it (one response alone, several as an array in the requests' order), or
     * undefined when the request is not plain and the SDK's own transport should serve it.
     */
    async answer(
      headers: Readonly<Record<string, string | string[] | undefined>>,
      body: unknown,
      authInfo: AuthInfo,
    ): Promise<string | undefined> {
      const requests = plainRequests(headers, body, transport.legacyVersions);
      if (!requests) return undefined;
      const responses = await transport.exchange(requests, authInfo);
      return JSON.stringify(responses.length === 1 ? responses[0] : responses);
    },
    close: () => server.close(),
  };
}
