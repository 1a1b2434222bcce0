import type { FastifyPluginAsync } from 'fastify';
import type { Container } from '../../../container.js';
import { toUserView } from '../../../domain/accounts/account-presenter.js';
import { adminUserPatch } from '../../../domain/accounts/account-schemas.js';
import { NotFoundError } from '../../../domain/common/errors.js';
import { parseInput } from '../../../domain/common/validation.js';
import { clearSessionCookie, sessionHook, sessionOf, setSessionCookie } from './session.js';

/** Sign-up, login, logout, the current user, password change; admin user management and invites. */
export const accountRoutes =
  (container: Container): FastifyPluginAsync =>
  async (app) => {
    const { sessions, users } = container.services;
    const maxAge = container.config.sessionTtlDays * 86_400;
    const signedIn = { onRequest: sessionHook(container, true) };

    app.get('/config', async () => sessions.config());

    app.post('/signup', async (request, reply) => {
      const { user, token } = await sessions.signup(request.body, request.ip);
      setSessionCookie(request, reply, token, maxAge);
      return reply.code(201).send({ user });
    });

    app.post('/login', async (request, reply) => {
      const { user, token } = await sessions.login(request.body, request.ip);
      setSessionCookie(request, reply, token, maxAge);
      return { user };
    });

    app.post('/logout', { onRequest: sessionHook(container, false, false) }, async (request, reply) => {
      if (request.session) await sessions.logout(request.session.tokenHash);
      clearSessionCookie(request, reply);
      return { message: 'Signed out' };
    });

    app.get('/me', signedIn, async (request) => ({ user: toUserView(sessionOf(request).user) }));

    app.post('/password', signedIn, async (request) => {
      const { user, tokenHash } = sessionOf(request);
      await sessions.changePassword(user.id, tokenHash, request.body);
      return { message: 'Password changed; other sessions were signed out' };
    });

    // Admin: hidden (404) from everyone else.
    const adminOnly = {
      onRequest: [
        sessionHook(container, true),
        async (request: import('fastify').FastifyRequest) => {
          if (!sessionOf(request).user.isAdmin) throw new NotFoundError('Route');
        },
      ],
    };
    app.get('/admin/users', adminOnly, async () => ({ users: await users.list() }));
    app.patch<{ Params: { id: string } }>('/admin/users/:id', adminOnly, async (request) => {
      // The dashboard's field names (snake_case), so `details` names the fields the client sent.
      const { tier, rate_limit } = parseInput(adminUserPatch, request.body ?? {});
      const user = await users.updateById(request.params.id, {
        ...(tier !== undefined && { tier }),
        ...(rate_limit !== undefined && { rateLimit: rate_limit }),
      });
      return { user };
    });
    app.post('/admin/invites', adminOnly, async (request, reply) => {
      const code = await sessions.createInvite(sessionOf(request).user);
      return reply.code(201).send({ code });
    });
  };
