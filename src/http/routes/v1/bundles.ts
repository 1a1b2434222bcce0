import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { Container } from '../../../container.js';
import { lineMeter, splitLines } from '../../../domain/bundles/bundle-lines.js';
import { bundleLine, importQuery, importResultSchema } from '../../../domain/bundles/bundle-schemas.js';
import { bundleTooLarge } from '../../../domain/bundles/bundle-service.js';
import { createImportSlots, type ImportSlots } from '../../../domain/bundles/import-slots.js';
import type { Actor } from '../../../domain/common/actor.js';
import { actorOf } from '../../auth.js';
import { type BundleSpool, openBundleSpool } from '../../bundle-spool.js';
import { sendError } from '../../errors.js';
import { authenticatedErrors, errorSchema, keyErrors } from '../../openapi.js';
import { streamingRoute } from '../../timeouts.js';
import { operations, restResource, type ZodApp } from '../operations.js';

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

/**
 * Writes the request body to a spool file (mode 0600), refusing more than `limit` bytes (413) and, as the
 * bytes pass, any line longer than `maxLine` (400 naming the line): the body is never held in memory. On a
 * refusal the request stream is left alone rather than destroyed (destroying it would reset the connection
 * before the client could read the answer); the route closes the connection after answering instead.
 */
async function spool(body: Readable, file: string, limit: number, maxLine: number): Promise<void> {
  let bytes = 0;
  const measure = lineMeter(maxLine);
  const out = createWriteStream(file, { mode: 0o600, flags: 'wx' });
  const failed = new Promise<never>((_resolve, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  try {
    for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > limit) throw bundleTooLarge(limit);
      measure(chunk);
      if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
    }
    out.end();
    await Promise.race([once(out, 'finish'), failed]);
  } finally {
    out.destroy();
  }
}

type Bundles = Container['services']['bundles'];
const op = operations('bundles');

/** `/api/v1/export` and `/api/v1/import`: a user's whole content as a JSON Lines bundle. */
export const bundleRoutes = restResource('bundles', async (app, container) => {
  // Prepared once at start: leftovers of a crashed run are removed before any import can begin.
  const spoolDir = await openBundleSpool(container.config.importSpoolDir);
  if (spoolDir.removed.length > 0) {
    app.log.info({ removed: spoolDir.removed }, 'removed import spool files left by a stopped server');
  }
  const slots = createImportSlots({
    perInstance: container.config.importMaxConcurrent,
    perUser: container.config.importMaxConcurrentPerUser,
  });
  // The body stays a stream: bundles can be far larger than the JSON body limit.
  // Every type, JSON included, reaches the import handler as a stream, so that the handler can answer a
  // wrong type with a message about bundles rather than the app's "must be JSON" — after the query has been
  // validated, so one answer names a bad `dry_run` too.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  exportRoute(app, container);
  importRoute(app, container, spoolDir, slots);
});

function exportRoute(app: ZodApp, container: Container) {
  const { bundles } = container.services;
  app.get(
    '/export',
    {
      ...streamingRoute, // may stream for longer than the per-request budget
      ...op('exportBundle', 'Export all of your content', {
        description:
          'Streams a JSON Lines bundle (`application/x-ndjson`): a header line, your prompts (each with its versions), memories, artifacts (each followed by one line per kept version) and an `end` line with the counts — a bundle without it was cut short. The format is described in docs/api.md.',
        response: {
          200: {
            description: 'The bundle, as an attachment (`Content-Disposition`)',
            content: { 'application/x-ndjson': { schema: bundleText } },
          },
          ...keyErrors,
        },
      }),
    },
    async (request, reply) => {
      const body = bundleStream(bundles, actorOf(request));
      body.on('error', (error) => request.log.error({ err: error }, 'export stopped before its end'));
      const day = container.clock.now().toISOString().slice(0, 10);
      return reply
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="cairn-export-${day}.jsonl"`)
        .header('cache-control', 'no-store')
        .send(body as never); // a stream: the JSON response schemas describe only the errors
    },
  );
}

/** The export as a byte stream, one JSON line per bundle line. */
const bundleStream = (bundles: Bundles, actor: Actor) => {
  const lines = bundles.export(actor);
  return Readable.from(
    (async function* () {
      for await (const line of lines) yield `${JSON.stringify(line)}\n`;
    })(),
  );
};

function importRoute(app: ZodApp, container: Container, spoolDir: BundleSpool, slots: ImportSlots) {
  const { bundles } = container.services;
  const { importMaxBytes: limit, importMaxLineBytes: maxLine } = container.config;
  app.post(
    '/import',
    {
      ...streamingRoute, // its body may take longer than the per-request budget
      ...op('importBundle', 'Import a bundle', {
        description: `Applies a bundle made by \`GET /export\` (sent as \`application/x-ndjson\`, up to IMPORT_MAX_BYTES — ${limit} bytes here). Every line is checked first (each at most IMPORT_MAX_LINE_BYTES — ${maxLine} bytes here — refused while the body streams in); if any is wrong nothing changes and the 400 names the lines. Imports running at once are capped per user (409) and per server (503). Then prompts are matched by slug, memories by id and artifacts by project and slug: new ones are created with their times and history, changed ones updated (a new version), equal ones left alone — importing the same bundle twice changes nothing. With \`dry_run=true\` only the counts are returned.`,
        querystring: importQuery,
        documentedBody: { types: BUNDLE_TYPES, schema: bundleText },
        response: {
          200: importResultSchema,
          ...authenticatedErrors,
          409: errorSchema.describe(
            'You already run IMPORT_MAX_CONCURRENT_PER_USER imports on this server (conflict); wait for one to finish',
          ),
          400: errorSchema.describe(
            'A line is wrong or too long, or the query is (validation_error; nothing was changed): `details` names up to 20 lines',
          ),
          413: errorSchema.describe('The bundle is larger than IMPORT_MAX_BYTES (payload_too_large)'),
          415: errorSchema.describe('Not sent as application/x-ndjson (unsupported_media_type)'),
          503: errorSchema.describe(
            'IMPORT_MAX_CONCURRENT imports are running on this server (service_unavailable); retry after Retry-After seconds',
          ),
        },
      }),
    },
    async (request, reply) => {
      const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? '';
      if (!BUNDLE_TYPES.includes(type) || !(request.body instanceof Readable)) {
        return sendError(reply, 'unsupported_media_type', BUNDLE_MEDIA_MESSAGE);
      }
      const actor = actorOf(request);
      let release: () => void;
      try {
        const declared = Number(request.headers['content-length']);
        if (declared > limit) throw bundleTooLarge(limit);
        // The slot is taken before the body is read and given back on every way out (errors, aborts).
        release = slots.acquire(actor.userId);
      } catch (error) {
        // Refused unread: close the connection after answering rather than drain a body of any size.
        reply.header('connection', 'close');
        throw error;
      }
      const file = spoolDir.file();
      try {
        try {
          await spool(request.body, file, limit, maxLine);
        } catch (error) {
          // The rest of the body is not read: answer, then close the connection.
          reply.header('connection', 'close');
          throw error;
        }
        const lines = () => splitLines(createReadStream(file), maxLine);
        return await bundles.import(actor, lines, { dryRun: request.query.dry_run });
      } finally {
        await rm(file, { force: true });
        release();
      }
    },
  );
}
