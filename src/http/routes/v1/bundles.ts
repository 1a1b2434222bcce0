import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Container } from '../../../container.js';
import { bundleLine, importQuery, importResultSchema } from '../../../domain/bundles/bundle-schemas.js';
import { bundleTooLarge, type RawLine } from '../../../domain/bundles/bundle-service.js';
import { type AuthHookFactory, actorOf, keyAuth } from '../../auth.js';
import { authenticatedErrors, errorSchema, keyErrors } from '../../openapi.js';

/** The media types a bundle may be sent as. */
const BUNDLE_TYPES = ['application/x-ndjson', 'application/jsonl'];
const BUNDLE_MEDIA_MESSAGE = 'Send the bundle as application/x-ndjson (one JSON object per line)';

/**
 * For the OpenAPI document: a bundle is text, one JSON object per line. OpenAPI 3.1 has no schema for
 * the items of a sequential media type (3.2 adds `itemSchema`), so the string schema carries the line
 * schema, generated from the one the import checks with, as `x-itemSchema`.
 */
const { $schema: _dialect, ...lineSchema } = z.toJSONSchema(bundleLine, {
  target: 'draft-2020-12',
  io: 'output',
  unrepresentable: 'any',
});
const bundleText = z.string().meta({
  description:
    'JSON Lines: one object per line (`x-itemSchema`), in the order header, prompts, memories, artifacts (each followed by its `artifact_version` lines), end',
  contentMediaType: 'application/x-ndjson',
  'x-itemSchema': lineSchema,
});

/** Writes the request body to a private temporary file, refusing more than `limit` bytes (413). */
async function spool(body: NodeJS.ReadableStream, limit: number): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-import-'));
  const file = join(dir, 'bundle.jsonl');
  let bytes = 0;
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      callback(bytes > limit ? bundleTooLarge(limit) : null, chunk);
    },
  });
  try {
    await pipeline(body, guard, createWriteStream(file, { mode: 0o600 }));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, file };
}

async function* linesOf(file: string): AsyncGenerator<RawLine> {
  const reader = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let number = 0;
  for await (const text of reader) yield { number: ++number, text };
}

/** `/api/v1/export` and `/api/v1/import`: a user's whole content as a JSON Lines bundle. */
export const bundleRoutes =
  (container: Container, auth: AuthHookFactory = keyAuth(container.services.gate)): FastifyPluginAsync =>
  async (plugin) => {
    const app = plugin.withTypeProvider<ZodTypeProvider>();
    const { bundles } = container.services;
    const limit = container.config.importMaxBytes;
    app.addHook('onRequest', auth('bundles'));
    // The body stays a stream: bundles can be far larger than the JSON body limit.
    // Every type reaches the import handler as a stream (JSON keeps the app's parser), so that the handler
    // can answer a wrong type with a message about bundles rather than the app's "must be JSON".
    app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    app.get(
      '/export',
      {
        schema: {
          tags: ['bundles'],
          operationId: 'exportBundle',
          summary: 'Export all of your content',
          description:
            'Streams a JSON Lines bundle (`application/x-ndjson`): a header line, your prompts (each with its versions), memories, artifacts (each followed by one line per kept version) and an `end` line with the counts — a bundle without it was cut short. The format is described in docs/api.md.',
          response: {
            200: {
              description: 'The bundle, as an attachment (`Content-Disposition`)',
              content: { 'application/x-ndjson': { schema: bundleText } },
            },
            ...keyErrors,
          },
        },
      },
      async (request, reply) => {
        const lines = bundles.export(actorOf(request));
        const body = Readable.from(
          (async function* () {
            for await (const line of lines) yield `${JSON.stringify(line)}\n`;
          })(),
        );
        body.on('error', (error) => request.log.error({ err: error }, 'export stopped before its end'));
        const day = container.clock.now().toISOString().slice(0, 10);
        return reply
          .header('content-type', 'application/x-ndjson; charset=utf-8')
          .header('content-disposition', `attachment; filename="cairn-export-${day}.jsonl"`)
          .header('cache-control', 'no-store')
          .send(body as never); // a stream: the JSON response schemas describe only the errors
      },
    );

    app.post(
      '/import',
      {
        schema: {
          tags: ['bundles'],
          operationId: 'importBundle',
          summary: 'Import a bundle',
          description: `Applies a bundle made by \`GET /export\` (sent as \`application/x-ndjson\`, up to IMPORT_MAX_BYTES — ${limit} bytes here). Every line is checked first; if any is wrong nothing changes and the 400 names the lines. Then prompts are matched by slug, memories by id and artifacts by project and slug: new ones are created with their times and history, changed ones updated (a new version), equal ones left alone — importing the same bundle twice changes nothing. With \`dry_run=true\` only the counts are returned.`,
          querystring: importQuery,
          documentedBody: { types: BUNDLE_TYPES, schema: bundleText },
          response: {
            200: importResultSchema,
            ...authenticatedErrors,
            400: errorSchema.describe(
              'A line is wrong (validation_error; nothing was changed): `details` names up to 20 lines',
            ),
            413: errorSchema.describe('The bundle is larger than IMPORT_MAX_BYTES (payload_too_large)'),
            415: errorSchema.describe('Not sent as application/x-ndjson (unsupported_media_type)'),
          },
        },
      },
      async (request, reply) => {
        const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? '';
        if (!BUNDLE_TYPES.includes(type) || !(request.body instanceof Readable)) {
          return reply.code(415).send({ error: 'unsupported_media_type', message: BUNDLE_MEDIA_MESSAGE });
        }
        const declared = Number(request.headers['content-length']);
        if (declared > limit) throw bundleTooLarge(limit);
        const { dir, file } = await spool(request.body, limit);
        try {
          return await bundles.import(actorOf(request), () => linesOf(file), { dryRun: request.query.dry_run });
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    );
  };
