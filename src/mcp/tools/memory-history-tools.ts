import { z } from 'zod';
import { idSchema } from '../../domain/common/ids.js';
import {
  type MemoryVersionSummary,
  memoryRestoredSchema,
  memoryVersionListSchema,
} from '../../domain/memories/memory-version-schemas.js';
import { additive, continueLine, cursorArg, defineTool, looseInt, readOnly } from '../tool.js';

/** One version as a line of the list's text: number, time, project, and the text's start. */
const versionLine = (v: MemoryVersionSummary) =>
  `v${v.version}${v.current ? ' (current)' : ''} ${v.created_at} ${v.project_name ?? '(global)'}: ${v.text_preview}${
    v.text_length > v.text_preview.length ? '…' : ''
  }`;

const historyOutput = memoryVersionListSchema.omit({ page: true, per_page: true }).extend({ memory_id: z.string() });

/** A memory's history over MCP: the same service calls as `GET …/versions` and `POST …/restore`. */
export const memoryHistoryTools = [
  defineTool({
    name: 'svc_list_memory_versions',
    title: 'List memory versions',
    description:
      'The history of a memory: its current version first, then the earlier ones, newest first, each with its time, project and the start of its text. ' +
      'Every change of a memory keeps the version it replaced; bring one back with svc_restore_memory. When next_cursor is not null, call again with cursor set to it.',
    input: z.strictObject({
      memory_id: idSchema.describe('The memory id, mem_…'),
      limit: looseInt(1, 100).default(20).describe('How many versions at most, 1–100 (default 20)'),
      cursor: cursorArg.optional(),
    }),
    output: historyOutput,
    annotations: readOnly,
    async run(services, actor, args) {
      const {
        page: _page,
        per_page: _perPage,
        ...list
      } = await services.memories.versions(actor, args.memory_id, {
        page: 1,
        per_page: args.limit,
        ...(args.cursor !== undefined && { cursor: args.cursor }),
      });
      const text =
        list.versions.length === 0
          ? 'No more versions.'
          : list.versions.map(versionLine).join('\n') + continueLine('svc_list_memory_versions', list.next_cursor);
      return { structured: { memory_id: args.memory_id, ...list }, text };
    },
  }),
  defineTool({
    name: 'svc_restore_memory',
    title: 'Restore memory version',
    description:
      'Bring back an earlier version of a memory (its text, project and metadata) as a new version; the version it replaces is kept, so nothing is lost. Find version numbers with svc_list_memory_versions.',
    input: z.strictObject({
      memory_id: idSchema.describe('The memory id, mem_…'),
      version: looseInt(1, 999_999_999).describe('The version to bring back'),
    }),
    output: memoryRestoredSchema.omit({ message: true }),
    annotations: additive,
    async run(services, actor, args) {
      const { message, ...restored } = await services.memories.restore(actor, args.memory_id, {
        version: args.version,
      });
      return {
        structured: restored,
        text: `${message}.\n[${restored.memory_id}] ${restored.project_name ?? '(global)'} ${JSON.stringify(
          restored.metadata,
        )}\n${restored.text}`,
      };
    },
  }),
];
