import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Container } from '../../container.js';
import { UnauthorizedError } from '../../domain/common/errors.js';
import { McpClients } from '../../mcp/client-info.js';
import type { FailureLog } from '../../mcp/errors.js';
import type { McpAnswer, McpService } from '../../mcp/server.js';
import { actorOf, admitKey } from '../auth.js';
import { sendError } from '../errors.js';
import { setRateHeaders } from '../rate-headers.js';

export const MCP_PATH = '/mcp/v1/common';

const LOOPBACK_HOST = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d+)?$/i;
const LOOPBACK_ORIGIN = /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::\d+)?$/i;

export interface OriginPolicy {
  /** Browser origins allowed besides loopback ones (MCP_ALLOWED_ORIGINS). */
  origins: ReadonlySet<string>;
  /** Host names (with port) accepted; empty = any (MCP_ALLOWED_HOSTS, or loopback names when bound to loopback). */
  hosts: ReadonlySet<string>;
  loopbackOnly: boolean;
}

/**
 * DNS-rebinding protection (MCP transport spec): a server bound to loopback answers only requests whose
 * Host is a loopback name, and a present `Origin` must be a loopback origin or a configured one.
 * Requests without `Origin` (every non-browser client) pass the origin check.
 */
export function requestAllowed(
  request: FastifyRequest,
  policy: OriginPolicy,
): { ok: true } | { ok: false; message: string } {
  const host = request.headers.host ?? '';
  if (
    policy.hosts.size > 0 ? !policy.hosts.has(host.toLowerCase()) : policy.loopbackOnly && !LOOPBACK_HOST.test(host)
  ) {
    return { ok: false, message: 'Host not allowed' };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !policy.origins.has(origin) && !LOOPBACK_ORIGIN.test(origin)) {
    return { ok: false, message: 'Origin not allowed' };
  }
  return { ok: true };
}

/** Said to every MCP client refused for its key: what kind of credential this server takes. */
export const STATIC_KEYS_HELP =
  'This server uses static API keys (Authorization: Bearer svk_…) created in the dashboard or with `cairn keys create`; it does not support OAuth.';

/**
 * The MCP endpoint's 401. MCP clients (mcp-remote, the Inspector, IDEs) take a bare 401 as an invitation
 * to OAuth discovery, which this server does not offer, and then report that failure instead of the key
 * problem. So the challenge says `invalid_token` with a description, carries no `resource_metadata`
 * (nothing to discover), and the body says plainly which key is wanted.
 */
function refuseKey(request: FastifyRequest, reply: FastifyReply, error: UnauthorizedError) {
  const lacksIntegration = error.message.includes('integration');
  const message = lacksIntegration
    ? `${error.message}. Use a key with the mcp_server integration (create one in the dashboard under API keys, or with \`cairn keys create --integrations mcp_server\`); this server does not support OAuth.`
    : `${request.headers.authorization ? 'Invalid API key.' : 'Missing API key.'} ${STATIC_KEYS_HELP}`;
  // A header value is ASCII without quotes or backslashes (RFC 6750 error_description).
  const description = message.replace(/…/g, '...').replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
  reply.header('www-authenticate', `Bearer realm="cairn", error="invalid_token", error_description="${description}"`);
  return sendError(reply, 'unauthorized', message);
}

/**
 * Where OAuth clients look for an authorization server. This server has none; the 404s say so, because
 * after a 401 a client such as mcp-remote tries these and shows the user only the last answer it got.
 */
const OAUTH_PATHS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/*',
  '/.well-known/oauth-authorization-server',
  '/.well-known/oauth-authorization-server/*',
  '/.well-known/openid-configuration',
  '/.well-known/openid-configuration/*',
  '/register',
  '/authorize',
  '/token',
];
export const NO_OAUTH_MESSAGE =
  'This server does not support OAuth: MCP clients authenticate with static API keys (Authorization: Bearer svk_…) created in the dashboard or with `cairn keys create`. If your client came here after a 401, the key it sent is missing, invalid, revoked or lacks the mcp_server integration.';

function sendAnswer(reply: FastifyReply, answer: McpAnswer) {
  reply.code(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) {
    if (name !== 'content-length' && name !== 'transfer-encoding') reply.header(name, value);
  }
  if (answer.body === null) return reply.send();
  // As bytes: Fastify would add `; charset=utf-8` to the SDK's `application/json` for a string.
  if (typeof answer.body === 'string') return reply.send(Buffer.from(answer.body));
  return reply.send(Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream));
}

/** How long after the server starts listening the MCP SDK loads if no MCP request has loaded it first. */
const MCP_PRELOAD_DELAY_MS = 1_000;

/**
 * `POST /mcp/v1/common`: stateless Streamable HTTP for both protocol generations. Authentication, the
 * integration check (`mcp_server`), rate limits and their headers are the same gate REST uses; then
 * `mcp/server.ts` serves it, with the caller in `authInfo`.
 */
export const mcpRoutes =
  (container: Container): FastifyPluginAsync =>
  async (app) => {
    // The MCP SDK and the tool catalog load at the first MCP request, or MCP_PRELOAD_DELAY_MS after the
    // server starts listening, whichever comes first: ~100 ms of module evaluation on the one thread that
    // /healthz and REST never need. Loaded at once (as before session 13), it ran just as the server began
    // to listen, and the first requests of a start — a health check, an orchestrator's probe — waited
    // behind it (docs/performance.md, session 13). Built once; a request that comes before it is ready waits.
    let service: Promise<McpService> | undefined;
    const mcpService = () => {
      service ??= import('../../mcp/server.js').then(({ createMcpService }) => createMcpService(container));
      return service;
    };
    let preload: NodeJS.Timeout | undefined;
    app.addHook('onListen', async () => {
      preload = setTimeout(() => void mcpService().catch(() => undefined), MCP_PRELOAD_DELAY_MS).unref();
    });
    const clients = new McpClients();
    const { config } = container;
    const policy: OriginPolicy = {
      origins: new Set(config.mcpAllowedOrigins),
      hosts: new Set(config.mcpAllowedHosts.map((h) => h.toLowerCase())),
      loopbackOnly: LOOPBACK_HOST.test(config.host) || config.host === '::1',
    };
    app.addHook('onClose', async () => {
      clearTimeout(preload);
      if (service !== undefined) await (await service).close();
    });

    for (const url of OAUTH_PATHS) {
      app.route({
        method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        url,
        schema: { hide: true },
        handler: (_request, reply) => sendError(reply, 'not_found', NO_OAUTH_MESSAGE),
      });
    }

    app.post(
      MCP_PATH,
      {
        // Tool arguments can carry an artifact's content.
        bodyLimit: container.config.artifacts.maxContentBytes * 2 + 1024 * 1024,
        schema: { hide: true },
        onRequest: [
          async (request, reply) => {
            const verdict = requestAllowed(request, policy);
            if (!verdict.ok) return sendError(reply, 'forbidden', verdict.message);
          },
          async (request, reply) => {
            try {
              await admitKey(container.services.gate, 'mcp', request, reply);
            } catch (error) {
              if (error instanceof UnauthorizedError) return refuseKey(request, reply, error);
              throw error;
            }
          },
        ],
      },
      async (request, reply) => {
        const admitted = actorOf(request);
        const client = clients.of(request.body, admitted.keyId);
        const actor = client ? { ...admitted, client } : admitted;
        // Every message of a JSON-RPC batch (2025-03-26 clients) is a call of its own: the admission counted
        // the first, the rest are reserved here at once, all or none (429 if they do not fit).
        const messages = Array.isArray(request.body) ? request.body.length : 1;
        if (messages > 1 && request.admission) {
          setRateHeaders(reply, await container.services.gate.reserveMore(request.admission, messages - 1));
        }
        const handler = await mcpService();
        const answer = await handler.serve({
          url: `${request.protocol}://${request.host}${request.url}`,
          headers: request.headers,
          body: request.body,
          authInfo: {
            token: 'api-key',
            clientId: actor.keyId ?? 'unknown',
            scopes: ['mcp_server'],
            // Unexpected failures are logged under this request's id, which is all the client is told.
            extra: {
              actor,
              log: {
                requestId: request.id,
                error: (fields, message) => request.log.error(fields, message),
              } satisfies FailureLog,
            },
          },
        });
        return sendAnswer(reply, answer);
      },
    );
  };
