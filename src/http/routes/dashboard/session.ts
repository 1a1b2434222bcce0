import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Container } from '../../../container.js';
import type { UserRecord } from '../../../domain/accounts/account-store.js';
import { ForbiddenError, UnauthorizedError } from '../../../domain/common/errors.js';
import type { AuthHookFactory } from '../../auth.js';
import { setRateHeaders } from '../../rate-headers.js';

declare module 'fastify' {
  interface FastifyRequest {
    session?: { user: UserRecord; tokenHash: string };
  }
}

/** `__Host-` (no Domain, Path=/, Secure) over HTTPS; a plain name over HTTP, where Secure is impossible. */
export const cookieName = (request: FastifyRequest) =>
  request.protocol === 'https' ? '__Host-cairn_session' : 'cairn_session';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      // A malformed escape (`%ZZ`) is a cookie that cannot be ours: no session, not a 500.
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number) {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${cookieName(request)}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`,
  );
}

export const clearSessionCookie = (request: FastifyRequest, reply: FastifyReply) =>
  setSessionCookie(request, reply, '', 0);

/**
 * CSRF protection: a state-changing request must come from a page of this origin (`Origin` equal to our
 * own; browsers always send it on cross-site and same-origin POST/PUT/PATCH/DELETE).
 */
export const requireSameOrigin: onRequestHookHandler = async (request) => {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
  const origin = request.headers.origin;
  if (origin !== `${request.protocol}://${request.host}`) {
    throw new ForbiddenError('Cross-origin request refused (the Origin header must be this site)');
  }
};

/**
 * Loads the session from the cookie; `required` routes answer 401 without one. A signed-in request counts
 * against the user's dashboard budget and carries its X-RateLimit-* headers (429 past it); `counted: false`
 * only for signing out, which must work whatever the budget says.
 */
export function sessionHook(container: Container, required: boolean, counted = true): onRequestHookHandler {
  return async (request, reply) => {
    const { sessions } = container.services;
    const token = readCookie(request, cookieName(request));
    const admitted = counted ? await sessions.admit(token) : undefined;
    const found = counted ? admitted : await sessions.authenticate(token);
    if (found) {
      request.session = { user: found.user, tokenHash: found.tokenHash };
      request.actor = found.actor;
      if (admitted) setRateHeaders(reply, admitted.rate);
    } else if (required) {
      throw new UnauthorizedError('Sign in to continue');
    }
  };
}

/** The content routes' auth for the dashboard: the session, whatever the surface. */
export const sessionAuth =
  (container: Container): AuthHookFactory =>
  () =>
    sessionHook(container, true);

export function sessionOf(request: FastifyRequest): { user: UserRecord; tokenHash: string } {
  if (!request.session) throw new UnauthorizedError('Sign in to continue');
  return request.session;
}
