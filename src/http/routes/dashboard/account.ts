import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { Container } from '../../../container.js';
import { toUserView } from '../../../domain/accounts/account-presenter.js';
import { adminUserPatch, credentials, passwordChange, signupInput } from '../../../domain/accounts/account-schemas.js';
import type { SignedIn } from '../../../domain/accounts/session-service.js';
import {
  inviteSchema,
  signupConfigSchema,
  userAnswerSchema,
  userListSchema,
} from '../../../domain/accounts/view-schemas.js';
import { actorOf } from '../../auth.js';
import { bodyErrors, errorSchema } from '../../openapi.js';
import { messageSchema } from '../operations.js';
import { dashboardErrors, dashboardInputErrors, type IdParams } from './schemas.js';
import { clearSessionCookie, sessionHook, sessionOf, setSessionCookie } from './session.js';

const hiddenFromNonAdmins = { 404: errorSchema.describe('Not an admin (the route is hidden: not_found)') };

/** Sign-up, login, logout, the current user, password change; admin user management and invites. */
export const accountRoutes =
  (container: Container): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<ZodTypeProvider>();
    const { sessions, users } = container.services;
    const maxAge = container.config.sessionTtlDays * 86_400;
    const signedIn = sessionHook(container, true);

    app.get(
      '/config',
      { schema: { response: { 200: signupConfigSchema, 500: dashboardErrors[500], 503: dashboardErrors[503] } } },
      async () => sessions.config(),
    );

    /** The answer of a sign-up or login: the user, and the new session in its cookie. */
    const startSession = (request: FastifyRequest, reply: FastifyReply, { user, token }: SignedIn) => {
      setSessionCookie(request, reply, token, maxAge);
      return { user };
    };
    const signInAnswers = { ...dashboardInputErrors, ...bodyErrors };

    app.post(
      '/signup',
      { schema: { body: signupInput, response: { 201: userAnswerSchema, ...signInAnswers } } },
      async (request, reply) =>
        reply.code(201).send(startSession(request, reply, await sessions.signup(request.body, request.ip))),
    );

    app.post(
      '/login',
      { schema: { body: credentials, response: { 200: userAnswerSchema, ...signInAnswers } } },
      async (request, reply) => startSession(request, reply, await sessions.login(request.body, request.ip)),
    );

    app.post(
      '/logout',
      {
        onRequest: sessionHook(container, false, false),
        schema: { response: { 200: messageSchema, ...dashboardErrors } },
      },
      async (request, reply) => {
        if (request.session) await sessions.logout(request.session.tokenHash);
        clearSessionCookie(request, reply);
        return { message: 'Signed out' };
      },
    );

    app.get(
      '/me',
      { onRequest: signedIn, schema: { response: { 200: userAnswerSchema, ...dashboardErrors } } },
      async (request) => ({ user: toUserView(sessionOf(request).user) }),
    );

    app.post(
      '/password',
      {
        onRequest: signedIn,
        schema: { body: passwordChange, response: { 200: messageSchema, ...dashboardInputErrors, ...bodyErrors } },
      },
      async (request) => {
        await sessions.changePassword(actorOf(request), request.body, sessionOf(request).tokenHash);
        return { message: 'Password changed; other sessions were signed out' };
      },
    );

    // Admin only: the accounts domain checks the role (and answers 404 to everyone else).
    app.get(
      '/admin/users',
      {
        onRequest: signedIn,
        schema: { response: { 200: userListSchema, ...dashboardErrors, ...hiddenFromNonAdmins } },
      },
      async (request) => ({ users: await users.list(actorOf(request)) }),
    );
    app.patch<IdParams & { Body: z.output<typeof adminUserPatch> | undefined }>(
      '/admin/users/:id',
      {
        onRequest: signedIn,
        schema: {
          // No body is an empty patch.
          body: adminUserPatch.optional(),
          response: {
            200: userAnswerSchema,
            ...dashboardInputErrors,
            404: errorSchema.describe('No such user, or not an admin (not_found)'),
            ...bodyErrors,
          },
        },
      },
      async (request) => ({ user: await users.updateById(actorOf(request), request.params.id, request.body) }),
    );
    app.post(
      '/admin/invites',
      { onRequest: signedIn, schema: { response: { 201: inviteSchema, ...dashboardErrors, ...hiddenFromNonAdmins } } },
      async (request, reply) => {
        const code = await sessions.createInvite(actorOf(request));
        return reply.code(201).send({ code });
      },
    );
  };
