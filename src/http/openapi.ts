import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type ApiDocsOptions, registerApiDocs } from './api-docs.js';

/** The error body of every failure (api-decisions §2). */
export const errorSchema = z
  .object({
    error: z.string().meta({ description: 'Machine-readable code, e.g. validation_error' }),
    message: z.string(),
    details: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'Field path → problem (validation_error only)' }),
    retry_after: z
      .number()
      .int()
      .optional()
      .meta({ description: 'Seconds until the window resets (rate_limit_exceeded only)' }),
    request_id: z
      .string()
      .optional()
      .meta({ description: 'The id the failure was logged under, also in X-Request-Id (internal_error only)' }),
  })
  .meta({ id: 'Error' });

/** Failures any key-authenticated operation can answer, whatever its input. */
export const keyErrors = {
  401: errorSchema.describe('Missing, invalid or revoked key, or a key without the needed integration (unauthorized)'),
  429: errorSchema.describe(
    'Hourly rate limit reached, or too many failed authentications from this address (rate_limit_exceeded)',
  ),
  500: errorSchema.describe('Unexpected failure (internal_error): the body carries only the request id'),
  503: errorSchema.describe('Storage unreachable (service_unavailable); Retry-After says when to try again'),
} as const;

/** Error responses shared by authenticated routes that take parameters, a query or a body. */
export const authenticatedErrors = {
  400: errorSchema.describe('Invalid input (validation_error); `details` names each bad field'),
  ...keyErrors,
} as const;

/** Error responses of routes that read a JSON body (DELETE too: a body it is sent must be JSON). */
export const bodyErrors = {
  413: errorSchema.describe('Body over the size limit (payload_too_large)'),
  415: errorSchema.describe('Body not JSON (unsupported_media_type)'),
} as const;

/**
 * A request body that is not JSON (a stream the handler reads itself), for the document only: a route
 * cannot declare it as `body`, which would make Fastify validate the stream.
 */
export interface DocumentedBody {
  types: string[];
  schema: z.ZodType;
}

/** The list of tags, with the operations' tags checked against it when the document is built. */
const TAGS = [
  { name: 'prompts', description: 'Reusable prompt templates, with versions, rendering and references' },
  { name: 'memories', description: 'Context snippets for AI tools, with ranked search' },
  { name: 'artifacts', description: 'Versioned documents addressed by project and slug' },
  { name: 'bundles', description: 'All of your content in and out as a JSON Lines bundle' },
  { name: 'context', description: 'One bounded block of context for an AI tool starting on a task' },
  { name: 'account', description: 'The account and key behind a request' },
  { name: 'audit', description: 'Every change of your content and keys: who, when, from where' },
  { name: 'webhooks', description: 'Signed HTTP notifications of changes to your content (docs/webhooks.md)' },
];

type Json = Record<string, unknown>;

/** Names of the component schemas referenced anywhere in `value`. */
function referencedSchemas(value: unknown): Set<string> {
  const names = new Set<string>();
  for (const match of JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g))
    names.add(match[1] as string);
  return names;
}

/**
 * The finished document: the zod registry's schemas (`Error`, …) become `components.schemas` — without
 * them every `$ref` dangles — and only the ones something refers to are kept (the registry also holds
 * input twins such as `ErrorInput` that nothing uses).
 */
function finishDocument(document: Parameters<typeof jsonSchemaTransformObject>[0]) {
  const finished = jsonSchemaTransformObject(document) as Json & { components: { schemas: Json } };
  const all = finished.components.schemas;
  const used = referencedSchemas({ ...finished, components: { ...finished.components, schemas: {} } });
  // Referenced schemas may refer to others: close over them.
  for (let grown = true; grown; ) {
    grown = false;
    for (const name of referencedSchemas([...used].map((n) => all[n]))) {
      if (!used.has(name)) {
        used.add(name);
        grown = true;
      }
    }
  }
  finished.components.schemas = Object.fromEntries(Object.entries(all).filter(([name]) => used.has(name)));
  return finished;
}

/**
 * OpenAPI 3.1 generated from the routes' zod schemas at `/api/v1/openapi.json`, and a browsable
 * reference at `/api/v1/docs`. Must be registered before the routes it describes. The document is the
 * contract: test/http/openapi-contract.test.ts checks it and checks real traffic of every operation
 * against it.
 */
export async function registerOpenApi(app: FastifyInstance, docs: ApiDocsOptions): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cairn API',
        version: '1.0.0',
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'Prompts, artifacts and memories for people and AI tools. Every request carries `Authorization: Bearer <API key>` ' +
          '(a static key made in the dashboard or with `cairn keys create`; there is no OAuth). ' +
          'Errors are JSON `{error, message}` plus `details` (validation), `retry_after` (rate limits) or `request_id` (internal errors). ' +
          'A method a path does not list is answered 405 `method_not_allowed` with an `Allow` header; an unknown path 404 `not_found`. ' +
          'Authenticated responses carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`; every response carries `X-Request-Id`.',
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: svk_ + 64 characters' },
        },
      },
      security: [{ apiKey: [] }],
      tags: TAGS,
    },
    // The dashboard's session API reuses the REST route plugins; it is documented in docs/dashboard-api.md,
    // not in the public API description.
    transform: ({ schema, url, route, ...rest }) => {
      if (url.startsWith('/dashboard/')) return { schema: { hide: true }, url };
      const { documentedBody, ...declared } = (schema ?? {}) as Json & { documentedBody?: DocumentedBody };
      for (const tag of (declared.tags as string[] | undefined) ?? []) {
        if (!TAGS.some((known) => known.name === tag)) throw new Error(`${url}: tag "${tag}" is not in the tag list`);
      }
      // A streamed body is documented as a body of its media types (the document only; see DocumentedBody).
      const documented = documentedBody
        ? { ...declared, body: documentedBody.schema, consumes: documentedBody.types }
        : declared;
      return jsonSchemaTransform({ schema: documented, url, route, ...rest } as Parameters<
        typeof jsonSchemaTransform
      >[0]);
    },
    transformObject: finishDocument as never,
  });
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerApiDocs(app, docs);
}

declare module 'fastify' {
  interface FastifySchema {
    /** A non-JSON request body, for the OpenAPI document only (see DocumentedBody). */
    documentedBody?: DocumentedBody;
  }
}
