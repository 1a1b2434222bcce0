import type { FastifyPluginAsync } from 'fastify';
import type { Container } from '../../../container.js';
import { toUserView } from '../../../domain/accounts/account-presenter.js';
import { actorOf } from '../../auth.js';
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
      await sessions.changePassword(actorOf(request), request.body, sessionOf(request).tokenHash);
      return { message: 'Password changed; other sessions were signed out' };
    });

    // Admin only: the accounts domain checks the role (and answers 404 to everyone else).
    app.get('/admin/users', signedIn, async (request) => ({ users: await users.list(actorOf(request)) }));
    app.patch<{ Params: { id: string } }>('/admin/users/:id', signedIn, async (request) => ({
      user: await users.updateById(actorOf(request), request.params.id, request.body),
    }));
    app.post('/admin/invites', signedIn, async (request, reply) => {
      const code = await sessions.createInvite(actorOf(request));
      return reply.code(201).send({ code });
    });
  };
