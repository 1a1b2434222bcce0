import { z } from 'zod';
import { MEMORY_VERSION_PREVIEW_CHARS } from '../../contract/index.js';
import { nextCursorSchema } from '../common/field-schemas.js';
import { checkCursorWithPage, cursorSchema, paginationQuery } from '../common/pagination.js';
import { memoryWithMessageSchema } from './memory-schemas.js';

// A memory's history (memory-history.ts): its versions, one version, and restoring one.

export const memoryVersionSummarySchema = z.object({
  version: z.number().int(),
  current: z.boolean().meta({ description: 'Whether this is the memory as it is now' }),
  project_name: z.string().nullable(),
  text_preview: z.string().meta({
    description: `The first ${MEMORY_VERSION_PREVIEW_CHARS} characters of the text (read the version for all)`,
  }),
  text_length: z.number().int().meta({ description: 'The whole text’s length in characters' }),
  created_at: z.string().meta({ description: 'When this version was written', format: 'date-time' }),
});
export type MemoryVersionSummary = z.infer<typeof memoryVersionSummarySchema>;

export const memoryVersionSchema = z.object({
  memory_id: z.string(),
  version: z.number().int(),
  current: z.boolean().meta({ description: 'Whether this is the memory as it is now' }),
  text: z.string(),
  project_name: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string().meta({ description: 'When this version was written', format: 'date-time' }),
});
export type MemoryVersion = z.infer<typeof memoryVersionSchema>;

export const memoryVersionListSchema = z.object({
  versions: z.array(memoryVersionSummarySchema),
  total: z.number().int().meta({ description: 'Versions held: the current one and the kept ones' }),
  page: z.number().int(),
  per_page: z.number().int(),
  next_cursor: nextCursorSchema,
});
export type MemoryVersionList = z.infer<typeof memoryVersionListSchema>;

/** Pages or a cursor, as every list (api.md "Pagination"). */
export const listMemoryVersionsQuery = z
  .object({
    ...paginationQuery,
    cursor: cursorSchema.optional().meta({
      description: 'Continue at the `next_cursor` of an earlier answer (instead of `page`)',
    }),
  })
  .superRefine(checkCursorWithPage);
export type ListMemoryVersionsQuery = z.output<typeof listMemoryVersionsQuery>;

export const restoreMemoryBody = z.strictObject({
  version: z.number().int('version must be an integer').min(1, 'version must be at least 1'),
});
export type RestoreMemoryInput = z.input<typeof restoreMemoryBody>;

/** A restore's answer: the memory as it now is, its new version, and a message. */
export const memoryRestoredSchema = memoryWithMessageSchema.extend({
  version: z.number().int().meta({ description: 'The new current version (the restored one is kept as it was)' }),
});
export type MemoryRestored = z.infer<typeof memoryRestoredSchema>;
