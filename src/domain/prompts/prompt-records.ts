import type { z } from 'zod';
import type { AuditAction } from '../../contract/index.js';
import { publishedPromptsOnly } from '../accounts/integrations.js';
import type { Actor } from '../common/actor.js';
import { changeBy } from '../common/audit.js';
import type { Clock } from '../common/clock.js';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '../common/errors.js';
import { etagOf, ifMatchAllows } from '../common/etag.js';
import { type IdGenerator, isId } from '../common/ids.js';
import { sameJson } from '../common/json.js';
import { isValidSlug } from '../common/slug.js';
import type { createPromptBody } from './prompt-schemas.js';
import type { PromptPatch, PromptRecord, PromptStore, PromptTemplate, VersionedFields } from './prompt-store.js';
import { extractReferencedSlugs, extractVariables, MAX_REFERENCE_DEPTH } from './template.js';
import { schemaMismatch, type VariableSchema } from './variables.js';

/** What the prompt operations need (PromptServiceDeps with its defaults applied). */
export interface PromptDeps {
  prompts: PromptStore;
  clock: Clock;
  ids: IdGenerator;
  renderMaxChars: number;
  /** The environment MCP reads serve when none is named and the prompt has it (`DEFAULT_PROMPT_ENVIRONMENT`). */
  defaultEnvironment?: string | undefined;
}

/** The versioned fields of `patch` that differ from `current` (an unchanged value is no change). */
export function versionedChanges(current: VersionedFields, patch: PromptPatch): (keyof VersionedFields)[] {
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
export function checkSchema(schema: VariableSchema, content: string): void {
  const mismatch = schemaMismatch(schema, extractVariables(content));
  if (mismatch) throw new ValidationError({ variable_schema: mismatch });
}

/**
 * Attempts at an update that keeps meeting a concurrent change (only without If-Match). Each round lets
 * at least one writer through, so this bounds the concurrent writers of one prompt that all succeed;
 * a short random pause between attempts keeps them from colliding in lockstep.
 */
const UPDATE_ATTEMPTS = 20;
const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10) * 2));

/** A prompt the actor may see: by id (`prm_…`) or slug; drafts are hidden from marketplace-only keys. */
export async function findPrompt(
  { prompts }: Pick<PromptDeps, 'prompts'>,
  actor: Actor,
  idOrSlug: string,
  mcpOnly = false,
): Promise<PromptRecord> {
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
export async function reachableTemplates(
  { prompts }: Pick<PromptDeps, 'prompts'>,
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
 * Applies `patch` to the current version, retrying on a concurrent change unless the caller pinned a
 * version with `ifMatch` (then that change is a 412). A change of a versioned field (or `forceVersion`)
 * stores a new version; other changes (status, MCP exposure, nothing at all) keep the version.
 */
export async function applyChange(
  { prompts, clock }: PromptDeps,
  actor: Actor,
  idOrSlug: string,
  change: (record: PromptRecord) => {
    patch: PromptPatch;
    forceVersion: boolean;
    commitMessage: string | null;
    /** The audit trail's word for it; by default `published`/`unpublished` for a status change, else `updated`. */
    action?: AuditAction;
  },
  ifMatch: string | undefined,
): Promise<{ record: PromptRecord; version: number }> {
  for (let attempt = 1; ; attempt++) {
    const record = await findPrompt({ prompts }, actor, idOrSlug);
    if (!ifMatchAllows(ifMatch, record.version)) {
      throw new PreconditionFailedError(`If-Match does not match the current version ${etagOf(record.version)}`);
    }
    const { patch, forceVersion, commitMessage, action } = change(record);
    // Every successful update moves updated_at (api-decisions §5); only a versioned change makes a version.
    const versioned = versionedChanges(record, patch).length > 0 || forceVersion;
    const now = clock.now();
    const statusAction =
      patch.status !== undefined && patch.status !== record.status
        ? patch.status === 'published'
          ? 'published'
          : 'unpublished'
        : 'updated';
    const landed = await prompts.update(
      actor.userId,
      record.id,
      {
        patch,
        updatedAt: now.toISOString(),
        expectedVersion: record.version,
        ...(versioned && { newVersion: { commitMessage } }),
        action: action ?? statusAction,
      },
      changeBy(actor, now),
    );
    if (landed) return { record, version: versioned ? record.version + 1 : record.version };
    if (ifMatch !== undefined) {
      throw new PreconditionFailedError('The prompt changed while this update was applied; read it again and retry');
    }
    if (attempt >= UPDATE_ATTEMPTS) throw new ConflictError('The prompt keeps changing; try again');
    await pause(attempt);
  }
}
