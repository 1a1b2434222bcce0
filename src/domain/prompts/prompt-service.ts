import type { z } from 'zod';
import { publishedPromptsOnly } from '../accounts/integrations.js';
import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import type { FieldErrors } from '../common/errors.js';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '../common/errors.js';
import { etagOf, ifMatchAllows } from '../common/etag.js';
import { normaliseLabelFilter } from '../common/field-schemas.js';
import { type IdGenerator, isId } from '../common/ids.js';
import { sameJson } from '../common/json.js';
import { type PageRequest, pageOffset } from '../common/pagination.js';
import { searchWords } from '../common/search-words.js';
import { freeSlug, insertWithSlug, isValidSlug, slugify } from '../common/slug.js';
import { parseInput } from '../common/validation.js';
import { toPrompt, toSummary, toVersionSummary } from './prompt-presenter.js';
import {
  type CreatePromptInput,
  createPromptBody,
  type ListPromptsQuery,
  type Prompt,
  type PromptListItem,
  type PromptVersion,
  type RenderPromptInput,
  type RenderResult,
  type RestorePromptInput,
  renderPromptBody,
  restorePromptBody,
  type UpdatePromptInput,
  updatePromptBody,
} from './prompt-schemas.js';
import type { PromptPatch, PromptRecord, PromptStore, PromptTemplate, VersionedFields } from './prompt-store.js';
import {
  DEFAULT_RENDER_MAX_CHARS,
  expandReferencesWith,
  extractReferencedSlugs,
  extractVariables,
  MAX_REFERENCE_DEPTH,
  PromptReferenceError,
  RenderTooLargeError,
  substituteVariables,
} from './template.js';
import { mustSupply, resolveVariables, schemaMismatch, type VariableSchema } from './variables.js';

export const MESSAGES = {
  created: 'Prompt created successfully',
  updated: 'Prompt updated successfully',
  deleted: 'Prompt deleted successfully',
} as const;

/** The versioned fields of `patch` that differ from `current` (an unchanged value is no change). */
function versionedChanges(current: VersionedFields, patch: PromptPatch): (keyof VersionedFields)[] {
  const keys: (keyof VersionedFields)[] = ['title', 'description', 'content', 'labels', 'variableSchema'];
  return keys.filter((key) => patch[key] !== undefined && !sameJson(patch[key], current[key]));
}

/**
 * A new prompt's record from its checked create body (the one mapping of the API's fields to the stored ones,
 * for a create and an import); `at` says where and when.
 */
export const newPromptRecord = (
  data: z.output<typeof createPromptBody>,
  at: Pick<PromptRecord, 'id' | 'userId' | 'slug' | 'version' | 'createdAt' | 'updatedAt'>,
): PromptRecord => ({
  ...at,
  title: data.title,
  description: data.description,
  content: data.content,
  status: data.status,
  availableInMcp: data.available_in_mcp,
  labels: data.labels,
  variableSchema: data.variable_schema ?? {},
});

/** Whether writing these (normalised) fields would change nothing: what an import reports as unchanged. */
export const promptUnchanged = (
  current: PromptRecord,
  next: Pick<PromptRecord, 'title' | 'description' | 'content' | 'status' | 'labels'> & {
    available_in_mcp: boolean;
    variable_schema: VariableSchema;
  },
): boolean =>
  versionedChanges(current, { ...next, variableSchema: next.variable_schema }).length === 0 &&
  current.status === next.status &&
  current.availableInMcp === next.available_in_mcp;

/** A schema may only describe the content's own variables. */
function checkSchema(schema: VariableSchema, content: string): void {
  const mismatch = schemaMismatch(schema, extractVariables(content));
  if (mismatch) throw new ValidationError({ variable_schema: mismatch });
}

export interface PromptServiceDeps {
  prompts: PromptStore;
  clock: Clock;
  ids: IdGenerator;
  /** The largest rendered prompt in characters (`RENDER_MAX_CHARS`); default DEFAULT_RENDER_MAX_CHARS. */
  renderMaxChars?: number;
}

export interface RenderOptions {
  /** Only a prompt exposed to MCP (`available_in_mcp`) can be rendered. */
  mcpOnly?: boolean;
  /**
   * `error` (the default): a missing target, a cycle or a seventh level is a validation error naming the
   * chain. `keep`: such references stay as written (`@slug`), listed in `references_broken` — MCP prompts
   * are listed whatever their references, so each must also render.
   */
  brokenReferences?: 'error' | 'keep';
  /**
   * Refuse a render that lacks a value for one of the prompt's own variables that must be supplied (required
   * and without a default): what MCP `prompts/list` announces as a required argument.
   */
  requireArguments?: boolean;
}

/**
 * Attempts at an update that keeps meeting a concurrent change (only without If-Match). Each round lets
 * at least one writer through, so this bounds the concurrent writers of one prompt that all succeed;
 * a short random pause between attempts keeps them from colliding in lockstep.
 */
const UPDATE_ATTEMPTS = 20;
const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10) * 2));

/** A budget error as the validation error every surface shows (REST 400, MCP -32602, tool error). */
const tooLarge = (error: RenderTooLargeError) => new ValidationError({ [error.field]: error.message }, error.message);

export function createPromptService({
  prompts,
  clock,
  ids,
  renderMaxChars = DEFAULT_RENDER_MAX_CHARS,
}: PromptServiceDeps) {
  /** A prompt the actor may see: by id (`prm_…`) or slug; drafts are hidden from marketplace-only keys. */
  async function find(actor: Actor, idOrSlug: string, mcpOnly = false): Promise<PromptRecord> {
    // Something that is neither an id nor a slug names no prompt: not found, without a query (whatever the
    // caller passed, e.g. an MCP prompt name holding U+0000, which PostgreSQL could not even compare).
    const record = isId('prm', idOrSlug)
      ? await prompts.findById(actor.userId, idOrSlug)
      : isValidSlug(idOrSlug)
        ? await prompts.findBySlug(actor.userId, idOrSlug)
        : undefined;
    const hidden = mcpOnly
      ? !record?.availableInMcp
      : publishedPromptsOnly(actor.integrations) && record?.status !== 'published';
    if (!record || hidden) throw new NotFoundError('Prompt');
    return record;
  }

  /**
   * Loads every prompt reachable from `root` by references, one query per nesting level. For a key that sees
   * published prompts only, a draft is loaded as missing: it is never expanded into what that key reads,
   * and the error or `@slug` left as written is exactly that of a prompt that does not exist.
   */
  async function reachableTemplates(
    actor: Actor,
    root: PromptRecord,
  ): Promise<Map<string, PromptTemplate | undefined>> {
    const publishedOnly = publishedPromptsOnly(actor.integrations);
    const templates = new Map<string, PromptTemplate | undefined>([[root.slug, root]]);
    let frontier = extractReferencedSlugs(root.content);
    for (let level = 0; level <= MAX_REFERENCE_DEPTH && frontier.length > 0; level++) {
      const wanted = frontier.filter((slug) => !templates.has(slug));
      const found = await prompts.templatesBySlug(actor.userId, wanted);
      if (publishedOnly) for (const [slug, t] of found) if (t.status !== 'published') found.delete(slug);
      for (const slug of wanted) templates.set(slug, found.get(slug));
      frontier = [...new Set([...found.values()].flatMap((template) => extractReferencedSlugs(template.content)))];
    }
    return templates;
  }

  /**
   * Renders a prompt: expands `@references` (recursively, at most 5 deep; cycles, missing targets and
   * overflow are a validation error naming the chain), then substitutes variables. Values come from the
   * caller, else the variable's default, else '' for an optional variable. A referenced prompt's
   * variables follow its own schema; the rendered prompt's schema wins on a shared name. Strict mode
   * refuses missing required and unknown variables; otherwise missing ones stay as written. Values
   * outside an `enum` are always refused. The result is at most `renderMaxChars` characters, counted while
   * it is built (expansion is memoised, so each prompt is expanded once per depth); past it, a validation
   * error naming the reference chain (or the variable) that overflowed. See RenderOptions for the rest.
   */
  async function render(
    actor: Actor,
    idOrSlug: string,
    input: RenderPromptInput,
    options: RenderOptions = {},
  ): Promise<RenderResult & { prompt: Prompt; references_broken: string[] }> {
    const { variables, resolve, strict } = parseInput(renderPromptBody, input);
    const record = await find(actor, idOrSlug, options.mcpOnly ?? false);
    if (options.requireArguments) {
      const spec = (name: string) =>
        Object.hasOwn(record.variableSchema, name) ? record.variableSchema[name] : undefined;
      const absent = extractVariables(record.content).filter(
        (name) => mustSupply(spec(name)) && !Object.hasOwn(variables, name),
      );
      if (absent.length > 0) {
        throw new ValidationError(
          Object.fromEntries(absent.map((name) => [`variables.${name}`, 'Required argument without a value'])),
          `Missing required arguments: ${absent.join(', ')}`,
        );
      }
    }
    let content = record.content;
    let schema: VariableSchema = record.variableSchema;
    let resolved: string[] = [];
    let broken: string[] = [];
    if (resolve) {
      const templates = await reachableTemplates(actor, record);
      try {
        const expansion = expandReferencesWith(
          record.slug,
          new Map([...templates].map(([slug, t]) => [slug, t?.content])),
          { maxChars: renderMaxChars, broken: options.brokenReferences === 'keep' ? 'keep' : 'throw' },
        );
        content = expansion.content;
        broken = expansion.broken;
        const inserted = new Set(expansion.expanded);
        resolved = [...templates.keys()].filter((slug) => inserted.has(slug)).map((slug) => `@${slug}`);
        // The schemas of the prompts actually inserted; the rendered prompt's own (last) wins.
        schema = Object.assign(
          {},
          ...[...templates]
            .filter(([slug]) => slug === record.slug || inserted.has(slug))
            .reverse()
            .map(([, t]) => t?.variableSchema ?? {}),
        );
      } catch (error) {
        if (error instanceof PromptReferenceError)
          throw new ValidationError({ references: error.message }, error.message);
        if (error instanceof RenderTooLargeError) throw tooLarge(error);
        throw error;
      }
    }
    const resolution = resolveVariables(extractVariables(content), schema, variables);
    const problems: FieldErrors = {};
    for (const [name, reason] of Object.entries(resolution.invalid)) problems[`variables.${name}`] = reason;
    if (strict) {
      for (const name of resolution.missing) problems[`variables.${name}`] = 'Required variable without a value';
      for (const name of resolution.unknown) problems[`variables.${name}`] = 'Not a variable of this prompt';
    }
    if (Object.keys(problems).length > 0) {
      const summary = [
        strict && resolution.missing.length > 0 && `missing ${resolution.missing.join(', ')}`,
        strict && resolution.unknown.length > 0 && `unknown ${resolution.unknown.join(', ')}`,
        Object.keys(resolution.invalid).length > 0 && `not allowed ${Object.keys(resolution.invalid).join(', ')}`,
      ].filter(Boolean);
      throw new ValidationError(problems, `Variables: ${summary.join('; ')}`);
    }
    let rendered: string;
    try {
      rendered = substituteVariables(content, resolution.values, renderMaxChars).content;
    } catch (error) {
      if (error instanceof RenderTooLargeError) throw tooLarge(error);
      throw error;
    }
    return {
      prompt: toPrompt(record),
      content: rendered,
      variables_used: resolution.used,
      variables_missing: resolution.missing,
      references_resolved: resolved,
      references_broken: broken,
    };
  }

  /**
   * Applies `patch` to the current version, retrying on a concurrent change unless the caller pinned a
   * version with `ifMatch` (then that change is a 412). A change of a versioned field (or `forceVersion`)
   * stores a new version; other changes (status, MCP exposure, nothing at all) keep the version.
   */
  async function applyChange(
    actor: Actor,
    idOrSlug: string,
    change: (record: PromptRecord) => { patch: PromptPatch; forceVersion: boolean; commitMessage: string | null },
    ifMatch: string | undefined,
  ): Promise<{ record: PromptRecord; version: number }> {
    for (let attempt = 1; ; attempt++) {
      const record = await find(actor, idOrSlug);
      if (!ifMatchAllows(ifMatch, record.version)) {
        throw new PreconditionFailedError(`If-Match does not match the current version ${etagOf(record.version)}`);
      }
      const { patch, forceVersion, commitMessage } = change(record);
      // Every successful update moves updated_at (api-decisions §5); only a versioned change makes a version.
      const versioned = versionedChanges(record, patch).length > 0 || forceVersion;
      const landed = await prompts.update(actor.userId, record.id, {
        patch,
        updatedAt: clock.now().toISOString(),
        expectedVersion: record.version,
        ...(versioned && { newVersion: { commitMessage } }),
      });
      if (landed) return { record, version: versioned ? record.version + 1 : record.version };
      if (ifMatch !== undefined) {
        throw new PreconditionFailedError('The prompt changed while this update was applied; read it again and retry');
      }
      if (attempt >= UPDATE_ATTEMPTS) throw new ConflictError('The prompt keeps changing; try again');
      await pause(attempt);
    }
  }

  return {
    render,

    /** Prompts exposed to MCP clients (`available_in_mcp`), whatever their status, with variables and schemas. */
    async listForMcp(actor: Actor, options: { search?: string; offset: number; limit: number }) {
      const terms = searchWords(options.search, 'whitespace');
      // Whole records: the variables and their schema come with the page, in one query.
      const page = await prompts.listRecords(actor.userId, {
        availableInMcp: true,
        labels: [],
        terms,
        offset: options.offset,
        limit: options.limit,
      });
      return {
        total: page.total,
        items: page.items.map((record) => ({
          ...toSummary(record),
          variables: extractVariables(record.content),
          variable_schema: record.variableSchema,
        })),
      };
    },

    async list(
      actor: Actor,
      query: ListPromptsQuery,
    ): Promise<{ prompts: PromptListItem[]; total: number; page: number; per_page: number }> {
      let status = query.status;
      if (publishedPromptsOnly(actor.integrations)) {
        if (status === 'draft') return { prompts: [], total: 0, page: query.page, per_page: query.per_page };
        status = 'published';
      }
      const terms = searchWords(query.search, 'whitespace');
      const labels = normaliseLabelFilter(query.label);
      const filter = { ...(status && { status }), labels, terms, offset: pageOffset(query), limit: query.per_page };
      const page = query.full
        ? await prompts.listRecords(actor.userId, filter).then(({ items, total }) => ({
            total,
            items: items.map((record) => {
              const { broken_references: _notInLists, ...prompt } = toPrompt(record);
              return prompt;
            }),
          }))
        : await prompts.list(actor.userId, filter).then(({ items, total }) => ({ total, items: items.map(toSummary) }));
      return { prompts: page.items, total: page.total, page: query.page, per_page: query.per_page };
    },

    /**
     * One prompt with its current version and the references whose target does not exist — for a key that
     * sees published prompts only, whose target it cannot see (a draft looks exactly like a missing prompt).
     */
    async get(actor: Actor, idOrSlug: string): Promise<Prompt> {
      const prompt = toPrompt(await find(actor, idOrSlug));
      const targets = prompt.references.map((reference) => reference.slice(1));
      const existing = await prompts.existingSlugs(
        actor.userId,
        targets,
        publishedPromptsOnly(actor.integrations) ? { status: 'published' } : {},
      );
      prompt.broken_references = prompt.references.filter((_, i) => !existing.has(targets[i] as string));
      return prompt;
    },

    async create(
      actor: Actor,
      input: CreatePromptInput,
    ): Promise<{ id: string; slug: string; title: string; version: number; message: string }> {
      const data = parseInput(createPromptBody, input);
      const variableSchema = data.variable_schema ?? {};
      checkSchema(variableSchema, data.content);
      const now = clock.now().toISOString();
      return insertWithSlug(
        data.slug,
        () => freeSlug(slugify(data.title), (prefix) => prompts.slugsStartingWith(actor.userId, prefix)),
        async (slug) => {
          const record = newPromptRecord(data, {
            id: ids('prm'),
            userId: actor.userId,
            slug,
            version: 1,
            createdAt: now,
            updatedAt: now,
          });
          await prompts.insert(record, [
            {
              version: 1,
              title: record.title,
              description: record.description,
              content: record.content,
              labels: record.labels,
              variable_schema: record.variableSchema,
              commit_message: data.commit_message ?? null,
              created_at: now,
            },
          ]);
          return { id: record.id, slug: record.slug, title: record.title, version: 1, message: MESSAGES.created };
        },
        (slug) => new ConflictError(`You already have a prompt with slug '${slug}'`),
      );
    },

    /**
     * Partial update. A change of title, description, content, labels or variable schema stores a new
     * version (with `commit_message`); with `ifMatch` (`"<version>"`) it is refused (412) unless the
     * prompt is still at that version.
     */
    async update(
      actor: Actor,
      idOrSlug: string,
      input: UpdatePromptInput,
      ifMatch?: string,
    ): Promise<{ id: string; slug: string; version: number; message: string }> {
      const data = parseInput(updatePromptBody, input);
      const { record, version } = await applyChange(
        actor,
        idOrSlug,
        (current) => {
          const patch: PromptPatch = {
            ...(data.title !== undefined && { title: data.title }),
            ...(data.description !== undefined && { description: data.description }),
            ...(data.content !== undefined && { content: data.content }),
            ...(data.status !== undefined && { status: data.status }),
            ...(data.available_in_mcp !== undefined && { availableInMcp: data.available_in_mcp }),
            ...(data.labels !== undefined && { labels: data.labels }),
            ...(data.variable_schema !== undefined && { variableSchema: data.variable_schema ?? {} }),
          };
          if (patch.content !== undefined || patch.variableSchema !== undefined) {
            checkSchema(patch.variableSchema ?? current.variableSchema, patch.content ?? current.content);
          }
          return { patch, forceVersion: false, commitMessage: data.commit_message ?? null };
        },
        ifMatch,
      );
      return { id: record.id, slug: record.slug, version, message: MESSAGES.updated };
    },

    /** Makes version `n` current again, as a new version (history is never rewritten). */
    async restore(
      actor: Actor,
      idOrSlug: string,
      input: RestorePromptInput,
      ifMatch?: string,
    ): Promise<{ id: string; slug: string; version: number; message: string }> {
      const data = parseInput(restorePromptBody, input);
      const target = await find(actor, idOrSlug);
      const old = await prompts.findVersion(actor.userId, target.id, data.version);
      if (!old) throw new NotFoundError('Prompt version');
      const { record, version } = await applyChange(
        actor,
        target.id,
        () => ({
          patch: {
            title: old.title,
            description: old.description,
            content: old.content,
            labels: old.labels,
            variableSchema: old.variable_schema,
          },
          forceVersion: true,
          commitMessage: data.commit_message ?? `Restored version ${data.version}`,
        }),
        ifMatch,
      );
      return {
        id: record.id,
        slug: record.slug,
        version,
        message: `Version ${data.version} restored as version ${version}`,
      };
    },

    async versions(actor: Actor, idOrSlug: string, query: PageRequest) {
      const record = await find(actor, idOrSlug);
      const page = await prompts.listVersions(actor.userId, record.id, {
        offset: pageOffset(query),
        limit: query.per_page,
      });
      return {
        versions: page.items.map(toVersionSummary),
        total: page.total,
        page: query.page,
        per_page: query.per_page,
      };
    },

    async version(actor: Actor, idOrSlug: string, version: number): Promise<PromptVersion> {
      const record = await find(actor, idOrSlug);
      const found = await prompts.findVersion(actor.userId, record.id, version);
      if (!found) throw new NotFoundError('Prompt version');
      return found;
    },

    /** Prompts whose content references this one (by its slug), newest first. */
    async referencedBy(actor: Actor, idOrSlug: string, query: PageRequest) {
      const record = await find(actor, idOrSlug);
      const page = await prompts.referencedBy(actor.userId, record.slug, {
        ...(publishedPromptsOnly(actor.integrations) && { status: 'published' as const }),
        offset: pageOffset(query),
        limit: query.per_page,
      });
      return { prompts: page.items.map(toSummary), total: page.total, page: query.page, per_page: query.per_page };
    },

    async delete(actor: Actor, idOrSlug: string): Promise<{ message: string }> {
      const record = await find(actor, idOrSlug);
      if (!(await prompts.delete(actor.userId, record.id))) throw new NotFoundError('Prompt');
      return { message: MESSAGES.deleted };
    },
  };
}

export type PromptService = ReturnType<typeof createPromptService>;
