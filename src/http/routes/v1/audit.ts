import { auditListSchema, listAuditQuery } from '../../../domain/audit/audit-schemas.js';
import { listRoute, restResource } from '../operations.js';

/** `GET /api/v1/audit`: the account's audit trail, newest first, filtered, with cursor paging. */
export const auditRoutes = restResource('audit', (app, container) => {
  listRoute(
    app,
    'audit',
    '/audit',
    {
      operationId: 'listAudit',
      summary: 'List the audit trail',
      description:
        'One event per change of a prompt, artifact, memory or API key, whatever surface made it (REST, MCP, ' +
        'dashboard, CLI, bundle import): when, the key and integration used, the client’s self-reported name ' +
        'and version, the object, the action, and SHA-256 hashes of the content before and after (never the ' +
        'content). Newest first; `next_cursor` continues with older events. Filters combine.',
      querystring: listAuditQuery,
      page: auditListSchema,
    },
    (actor, query) => container.services.audit.list(actor, query),
  );
});
