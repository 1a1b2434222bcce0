import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { CLI_CLIENT_NAME } from '../contract/index.js';
import type { AccessGate, Admission } from '../domain/accounts/access-gate.js';
import { acceptedIntegrations, type Surface } from '../domain/accounts/integrations.js';
import type { Actor } from '../domain/common/actor.js';
import { setRateHeaders } from './rate-headers.js';

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
    /** The access gate's admission of this request (for counting further units of it). */
    admission?: Admission;
  }
}

/** The authenticated caller of a route that ran `requireKey`. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new Error('route is missing its requireKey hook');
  return request.actor;
}

/**
 * onRequest hook: admits the request through the access gate for `surface` (or `surfaceFor` by method)
 * before its body is even read, and puts the rate-limit headers on the response.
 */
export function requireKey(gate: AccessGate, surfaceFor: SurfaceFor): onRequestHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const surface =
      typeof surfaceFor === 'function' ? surfaceFor(request.method, request.routeOptions.url ?? '') : surfaceFor;
    await admitKey(gate, surface, request, reply);
  };
}

/** The admission itself, for a hook that answers its failures in its own words (the MCP endpoint). */
export async function admitKey(gate: AccessGate, surface: Surface, request: FastifyRequest, reply: FastifyReply) {
  const admission = await gate.admit(request.headers.authorization, surface, request.ip);
  request.actor = surface === 'mcp' ? admission.actor : asCli(admission.actor, surface, request.headers['user-agent']);
  request.admission = admission;
  setRateHeaders(reply, admission.rate);
}

const CLI_AGENT = new RegExp(`^${CLI_CLIENT_NAME}/([\\w.+-]{1,40})(?:\\s|$)`);

/**
 * The remote CLI says who it is in its User-Agent (`cairn-cli/<version>`): its changes are recorded under
 * the surface `cli` with that version, and under the key's `cli` integration when the key holds it and the
 * route accepts it. Self-reported: it labels the audit trail, it grants nothing.
 */
function asCli(actor: Actor, surface: Surface, userAgent: string | undefined): Actor {
  const match = userAgent === undefined ? null : CLI_AGENT.exec(userAgent);
  if (!match) return actor;
  const cliAccepted = actor.integrations.has('cli') && acceptedIntegrations(surface).includes('cli');
  return {
    ...actor,
    surface: 'cli',
    client: { name: CLI_CLIENT_NAME, version: match[1] ?? null },
    ...(cliAccepted && { integration: 'cli' as const }),
  };
}

/** The surface a request uses: fixed, or chosen by method and route pattern (e.g. `/prompts/:id_or_slug`). */
export type SurfaceFor = Surface | ((method: string, route: string) => Surface);

/** How a group of routes authenticates: API key (REST) or dashboard session, behind one signature. */
export type AuthHookFactory = (surfaceFor: SurfaceFor) => onRequestHookHandler;

export const keyAuth =
  (gate: AccessGate): AuthHookFactory =>
  (surfaceFor) =>
    requireKey(gate, surfaceFor);
