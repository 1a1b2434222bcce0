import { contextQuery, contextSchema } from '../../../domain/context/context-schemas.js';
import { actorOf } from '../../auth.js';
import { authenticatedErrors } from '../../openapi.js';
import { operations, restResource } from '../operations.js';

/** `GET /api/v1/context`: the context block for an AI tool starting on a task (keys with `ai_tools`). */
export const contextRoutes = restResource('context', (app, { services: { context } }) => {
  app.get(
    '/context',
    operations('context')('getContext', 'The context block for a task', {
      description:
        'One bounded, deterministic block for a model at the start of a session: the high-priority memories of `project_name`, its sub-projects, its parent projects and global ones; the memories ranked best for `task` (without one, the project’s automatic context); the prompts available to AI tools with their arguments; and the project’s artifacts (title, slug, size; no content). ' +
        'Every memory says why it is there (`why`: reason, score and its parts); `left_out` counts by kind what qualified but did not fit. The JSON answer is at most `max_chars` characters (default 20,000): long items come back as previews (`truncated: true`; read them whole by id). ' +
        'Reading the block does not count as an access to its memories, so the same data and input give the same block. Needs a key with the `ai_tools` integration (MCP clients call `svc_get_context`).',
      querystring: contextQuery,
      response: { 200: contextSchema, ...authenticatedErrors },
    }),
    async (request) => context.get(actorOf(request), request.query),
  );
});
