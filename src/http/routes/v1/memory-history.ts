import { z } from 'zod';
import type { Container } from '../../../container.js';
import { boundedString } from '../../../domain/common/bounds.js';
import {
  listMemoryVersionsQuery,
  memoryRestoredSchema,
  memoryVersionListSchema,
  memoryVersionSchema,
  restoreMemoryBody,
} from '../../../domain/memories/memory-version-schemas.js';
import { actorOf } from '../../auth.js';
import { authenticatedErrors, bodyErrors, errorSchema } from '../../openapi.js';
import { listRoute, operations, versionNumber, type ZodApp } from '../operations.js';

const idParams = z.object({
  memory_id: boundedString(100, 'Not a valid id').min(1).meta({ description: 'The memory id (mem_…)' }),
});
const versionParams = idParams.extend({
  version: versionNumber('version must be a positive integer', 'The version number (1 is the first)'),
});
const notFound = { 404: errorSchema.describe('No such memory for this user') };
const noVersion = { 404: errorSchema.describe('No such memory, or no such version of it') };
const op = operations('memories');

/** A memory's history: `…/versions`, `…/versions/{version}` and `…/restore`, as prompts have them. */
export function memoryHistoryRoutes(app: ZodApp, memories: Container['services']['memories']) {
  listRoute(
    app,
    'memories',
    '/memories/:memory_id/versions',
    {
      operationId: 'listMemoryVersions',
      summary: 'List the versions of a memory',
      description:
        'The current version first, then the kept previous ones, newest first (`MEMORY_VERSION_RETENTION` of them), ' +
        'each with a preview of its text (read one version for all of it). Pages, or `cursor` with `next_cursor`.',
      params: idParams,
      querystring: listMemoryVersionsQuery,
      page: memoryVersionListSchema,
      missing: notFound,
    },
    (actor, query, params) => memories.versions(actor, params.memory_id, query),
  );

  app.get(
    '/memories/:memory_id/versions/:version',
    op('getMemoryVersion', 'Read one version of a memory', {
      params: versionParams,
      response: { 200: memoryVersionSchema, ...authenticatedErrors, ...noVersion },
    }),
    async (request) => memories.version(actorOf(request), request.params.memory_id, request.params.version),
  );

  app.post(
    '/memories/:memory_id/restore',
    op('restoreMemoryVersion', 'Restore a version of a memory', {
      description:
        'Writes version `version` (text, project, metadata) back as a new version; the one it replaces is kept, so ' +
        'history is never rewritten. Does not count as an access.',
      params: idParams,
      body: restoreMemoryBody,
      response: { 200: memoryRestoredSchema, ...authenticatedErrors, ...noVersion, ...bodyErrors },
    }),
    async (request) => memories.restore(actorOf(request), request.params.memory_id, request.body),
  );
}
