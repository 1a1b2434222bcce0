import {
  type AuthInfo,
  classifyInboundRequest,
  createMcpHandler,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Container } from '../container.js';
import { serverFactory } from './handlers.js';
import { headerOf, sharedLegacyServer } from './legacy-json.js';

/** One POST to the MCP endpoint, as the HTTP layer hands it over (the body already parsed). */
export interface McpRequest {
  /** The request's absolute URL (the SDK's Web `Request` needs one). */
  url: string;
  /** Node's parsed headers: lower-case names, a list for a repeated header. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: unknown;
  /** `extra` carries the authenticated caller (`Caller` in handlers.ts). */
  authInfo: AuthInfo;
}

/** The answer: a JSON body as text, an SSE stream, or nothing (202). */
export interface McpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | ReadableStream<Uint8Array> | null;
}

export interface McpService {
  /** Serves one HTTP request of either protocol generation. */
  serve(request: McpRequest): Promise<McpAnswer>;
  close(): Promise<void>;
}

export interface McpServiceOptions {
  /**
   * Answer plain 2025-era requests on the one long-lived server (default). Off, every request gets a
   * server and a transport of its own, as the SDK's stateless pattern has it: the reference the
   * shared path is tested against.
   */
  shared?: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** A Web `Request` for the SDK's handlers: the envelope only, the body goes in parsed. */
function webRequest({ url, headers }: McpRequest): Request {
  const web = new Headers();
  for (const name of Object.keys(headers)) {
    const value = headerOf(headers, name);
    if (value !== undefined && name !== 'content-length') web.set(name, value);
  }
  return new Request(url, { method: 'POST', headers: web });
}

async function answerOf(response: Response): Promise<McpAnswer> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const stream = response.headers.get('content-type')?.startsWith('text/event-stream');
  const body = !response.body ? null : stream ? response.body : await response.text();
  return { status: response.status, headers, body };
}

/**
 * Serves the MCP endpoint for both protocol generations.
 *
 * Plain 2025-era requests (one request or a batch, no `initialize`; the common case, and the one the
 * benchmark measures) go to one server built at start and shared by every caller: its handlers take the
 * caller from each request's `authInfo`, and `SharedJsonTransport` keeps the callers' ids apart. The
 * answer is the JSON the SDK's stateless transport would write, without building a server, a transport,
 * a Web `Request` and `Response` per request (over 40 % of an MCP call's CPU time, see docs/performance.md).
 *
 * Everything else is served the SDK's per-request way, by a server of its own: 2026-07-28 requests by
 * `createMcpHandler`, other 2025-era ones (`initialize`, notifications, anything the SDK refuses) by a
 * stateless transport with JSON responses (the SDK's own fallback answers them as an SSE stream,
 * several times slower for a one-shot answer and no more capable, since Cairn's tools send nothing
 * before their result).
 */
export async function createMcpService(container: Container, options: McpServiceOptions = {}): Promise<McpService> {
  const newServer = serverFactory(container);
  const shared = options.shared === false ? undefined : await sharedLegacyServer(newServer());
  const modern = createMcpHandler(newServer, { legacy: 'reject' });

  async function perRequestLegacy(request: McpRequest): Promise<McpAnswer> {
    const server = newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await answerOf(
        await transport.handleRequest(webRequest(request), { authInfo: request.authInfo, parsedBody: request.body }),
      );
    } finally {
      await transport.close();
      await server.close();
    }
  }

  return {
    async serve(request) {
      const json = await shared?.answer(request.headers, request.body, request.authInfo);
      if (json !== undefined) return { status: 200, headers: JSON_HEADERS, body: json };
      // The SDK's own routing decision (what `isLegacyRequest` runs), from the parsed body and headers.
      const legacy =
        request.body === undefined ||
        classifyInboundRequest({
          httpMethod: 'POST',
          protocolVersionHeader: headerOf(request.headers, 'mcp-protocol-version'),
          mcpMethodHeader: headerOf(request.headers, 'mcp-method'),
          mcpNameHeader: headerOf(request.headers, 'mcp-name'),
          body: request.body,
        }).kind === 'legacy';
      if (legacy) return perRequestLegacy(request);
      return answerOf(
        await modern.fetch(webRequest(request), { authInfo: request.authInfo, parsedBody: request.body }),
      );
    },
    async close() {
      await modern.close();
      await shared?.close();
    },
  };
}
