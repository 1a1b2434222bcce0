import { publishedPromptsOnly } from '../accounts/integrations.js';
import type { Actor } from '../actor.js';
import type { Clock } from '../clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { IdGenerator } from '../ids.js';
import { pageOffset } from '../pagination.js';
import { SLUG_MAX, slugify, uniqueSlug } from '../slug.js';
import { parseInput } from '../validation.js';
import {
  type CreatePromptInput,
  createPromptBody,
  type ListPromptsQuery,
  type Prompt,
  type PromptSummary,
  type UpdatePromptInput,
  updatePromptBody,
} from './prompt-schemas.js';
import type { PromptRecord, PromptStore } from './prompt-store.js';
import {
  expandReferences,
  extractReferencedSlugs,
  extractReferences,
  extractVariables,
  MAX_REFERENCE_DEPTH,
  PromptReferenceError,
  substituteVariables,
} from './template.js';

export const MESSAGES = {
  created: 'Prompt created successfully',
  updated: 'Prompt updated successfully',
  deleted: 'Prompt deleted successfully',
} as const;

const ID_PATTERN = /^prm_[0-9A-HJKMNP-TV-Z]{26}$/;

export function toPrompt(record: PromptRecord): Prompt {
  return {
    id: record.id,
    slug: record.slug,
    title: record.title,
    description: record.description,
    content: record.content,
    status: record.status,
    available_in_mcp: record.availableInMcp,
    labels: record.labels,
    variables: extractVariables(record.content),
    references: extractReferences(record.content),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

export interface PromptServiceDeps {
  prompts: PromptStore;
  clock: Clock;
  ids: IdGenerator;
}

/** Attempts at a generated slug before giving up under a storm of concurrent creates with one title. */
const SLUG_ATTEMPTS = 5;

export function createPromptService({ prompts, clock, ids }: PromptServiceDeps) {
  /** A prompt the actor may see: by id (`prm_…`) or slug; drafts are hidden from marketplace-only keys. */
  async function find(actor: Actor, idOrSlug: string, mcpOnly = false): Promise<PromptRecord> {
    const record = ID_PATTERN.test(idOrSlug)
      ? await prompts.findById(actor.userId, idOrSlug)
      : await prompts.findBySlug(actor.userId, idOrSlug);
    const hidden = mcpOnly
      ? !record?.availableInMcp
      : publishedPromptsOnly(actor.integrations) && record?.status !== 'published';
    if (!record || hidden) throw new NotFoundError('Prompt');
    return record;
  }

  async function freeSlug(userId: string, title: string): Promise<string> {
    const base = slugify(title);
    // Suffixes are at most a few characters, so slugs sharing the first 90 characters cover every candidate.
    const taken = new Set(await prompts.slugsStartingWith(userId, base.slice(0, SLUG_MAX - 10)));
    return uniqueSlug(base, taken);
  }

  /** Loads every prompt reachable from `root` by references, one query per nesting level. */
  async function reachableContents(userId: string, root: PromptRecord): Promise<Map<string, string | undefined>> {
    const contents = new Map<string, string | undefined>([[root.slug, root.content]]);
    let frontier = extractReferencedSlugs(root.content);
    for (let level = 0; level <= MAX_REFERENCE_DEPTH && frontier.length > 0; level++) {
      const wanted = frontier.filter((slug) => !contents.has(slug));
      const found = await prompts.contentsBySlug(userId, wanted);
      for (const slug of wanted) contents.set(slug, found.get(slug));
      frontier = [...new Set([...found.values()].flatMap(extractReferencedSlugs))];
    }
    return contents;
  }

  return {
    /** Prompts exposed to MCP clients (`available_in_mcp`), whatever their status. */
    async listForMcp(actor: Actor, options: { search?: string; offset: number; limit: number }) {
      const terms = (options.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const page = await prompts.list(actor.userId, {
        availableInMcp: true,
        labels: [],
        terms,
        offset: options.offset,
        limit: options.limit,
      });
      // Variables for the whole page from one query, not one read per prompt.
      const contents = await prompts.contentsBySlug(
        actor.userId,
        page.items.map((item) => item.slug),
      );
      return {
        total: page.total,
        items: page.items.map((item) => ({ ...item, variables: extractVariables(contents.get(item.slug) ?? '') })),
      };
    },

    /**
     * Expands `@references` (recursively, at most 5 deep) and substitutes variables. Missing variables
     * stay as written. With `mcpOnly`, only a prompt exposed to MCP can be rendered.
     */
    async render(
      actor: Actor,
      idOrSlug: string,
      variables: Record<string, string>,
      options: { mcpOnly?: boolean } = {},
    ) {
      const record = await find(actor, idOrSlug, options.mcpOnly ?? false);
      const contents = await reachableContents(actor.userId, record);
      let expanded: string;
      try {
        expanded = expandReferences(record.slug, contents);
      } catch (error) {
        if (error instanceof PromptReferenceError)
          throw new ValidationError({ references: error.message }, error.message);
        throw error;
      }
      const result = substituteVariables(expanded, variables);
      return {
        prompt: toPrompt(record),
        content: result.content,
        variables_used: result.used,
        variables_missing: result.missing,
        references_resolved: [...contents.keys()].filter((slug) => slug !== record.slug).map((slug) => `@${slug}`),
      };
    },

    async list(
      actor: Actor,
      query: ListPromptsQuery,
    ): Promise<{ prompts: PromptSummary[]; total: number; page: number; per_page: number }> {
      let status = query.status;
      if (publishedPromptsOnly(actor.integrations)) {
        if (status === 'draft') return { prompts: [], total: 0, page: query.page, per_page: query.per_page };
        status = 'published';
      }
      const terms = (query.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const labels = [...new Set(query.label.map((label) => label.trim()).filter(Boolean))];
      const page = await prompts.list(actor.userId, {
        ...(status && { status }),
        labels,
        terms,
        offset: pageOffset(query),
        limit: query.per_page,
      });
      return { prompts: page.items, total: page.total, page: query.page, per_page: query.per_page };
    },

    async get(actor: Actor, idOrSlug: string): Promise<Prompt> {
      return toPrompt(await find(actor, idOrSlug));
    },

    async create(
      actor: Actor,
      input: CreatePromptInput,
    ): Promise<{ id: string; slug: string; title: string; message: string }> {
      const data = parseInput(createPromptBody, input);
      const now = clock.now().toISOString();
      for (let attempt = 1; ; attempt++) {
        const record: PromptRecord = {
          id: ids('prm'),
          userId: actor.userId,
          slug: data.slug ?? (await freeSlug(actor.userId, data.title)),
          title: data.title,
          description: data.description,
          content: data.content,
          status: data.status,
          availableInMcp: data.available_in_mcp,
          labels: data.labels,
          createdAt: now,
          updatedAt: now,
        };
        try {
          await prompts.insert(record);
          return { id: record.id, slug: record.slug, title: record.title, message: MESSAGES.created };
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error;
          if (data.slug !== undefined) throw new ConflictError(`You already have a prompt with slug '${data.slug}'`);
          // Another request took the generated slug between our read and insert: pick again.
          if (attempt >= SLUG_ATTEMPTS) throw error;
        }
      }
    },

    async update(
      actor: Actor,
      idOrSlug: string,
      input: UpdatePromptInput,
    ): Promise<{ id: string; slug: string; message: string }> {
      const data = parseInput(updatePromptBody, input);
      const record = await find(actor, idOrSlug);
      const updated = await prompts.update(
        actor.userId,
        record.id,
        {
          ...(data.title !== undefined && { title: data.title }),
          ...(data.description !== undefined && { description: data.description }),
          ...(data.content !== undefined && { content: data.content }),
          ...(data.status !== undefined && { status: data.status }),
          ...(data.available_in_mcp !== undefined && { availableInMcp: data.available_in_mcp }),
          ...(data.labels !== undefined && { labels: data.labels }),
        },
        clock.now().toISOString(),
      );
      if (!updated) throw new NotFoundError('Prompt');
      return { id: record.id, slug: record.slug, message: MESSAGES.updated };
    },

    async delete(actor: Actor, idOrSlug: string): Promise<{ message: string }> {
      const record = await find(actor, idOrSlug);
      if (!(await prompts.delete(actor.userId, record.id))) throw new NotFoundError('Prompt');
      return { message: MESSAGES.deleted };
    },
  };
}

export type PromptService = ReturnType<typeof createPromptService>;
