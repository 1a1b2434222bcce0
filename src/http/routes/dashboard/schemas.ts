import { errorSchema } from '../../openapi.js';

// Route schema pieces of the dashboard's own routes (account, keys, usage). The dashboard API is not in the
// OpenAPI document (docs/dashboard-api.md describes it), but its routes declare their input and answers like
// the REST routes: the same validator, the same error shape.

/**
 * `:id` of a key or user is a lookup key, not input to check: whatever is not one of the caller's ids
 * (malformed, too long, U+0000 included) is a 404 from the service, without a query — the dashboard's
 * contract (test/http/dashboard.test.ts). A params schema would answer some of them 400 (the validator's
 * U+0000 rule) and, since Fastify validates params first, hide a bad body's fields behind the id; so these
 * routes type their params instead of declaring a schema (the router bounds them at 1,000 characters).
 */
export interface IdParams {
  Params: { id: string };
}

/** Failures any dashboard route can answer. */
export const dashboardErrors = {
  401: errorSchema.describe('No valid session (unauthorized)'),
  403: errorSchema.describe('A state change from another origin (forbidden)'),
  429: errorSchema.describe('Dashboard rate limit or sign-in throttle reached (rate_limit_exceeded)'),
  500: errorSchema.describe('Unexpected failure (internal_error): the body carries only the request id'),
  503: errorSchema.describe('Storage unreachable (service_unavailable)'),
} as const;

/** …and those of a route that takes a body or parameters. */
export const dashboardInputErrors = {
  400: errorSchema.describe('Invalid input (validation_error); `details` names each bad field'),
  ...dashboardErrors,
} as const;
