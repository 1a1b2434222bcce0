import { meSchema } from '../../../domain/accounts/account-schemas.js';
import { actorOf } from '../../auth.js';
import { keyErrors } from '../../openapi.js';
import { operations, restResource } from '../operations.js';

/** `GET /api/v1/me`: the account and key behind a request (what `cairn whoami` shows). */
export const meRoutes = restResource('account', (app, container) => {
  app.get(
    '/me',
    operations('account')('getMe', 'Who am I', {
      description:
        'The account (id, e-mail, tier) and the API key in use (name, prefix, integrations). Any key may ask; the rate-limit headers carry the current hour’s figures.',
      response: { 200: meSchema, ...keyErrors },
    }),
    async (request) => container.services.keys.whoAmI(actorOf(request)),
  );
});
