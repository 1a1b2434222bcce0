import { publishedPromptsOnly } from '../accounts/integrations.js';
import type { Actor } from '../common/actor.js';
import { NotFoundError } from '../common/errors.js';
import { type PageRequest, pageOffset } from '../common/pagination.js';
import { parseInput } from '../common/validation.js';
import { throughMarketplacePointers } from './prompt-crud.js';
import { toSummary, toVersionSummary } from './prompt-presenter.js';
import { applyChange, findPrompt, type PromptDeps } from './prompt-records.js';
import { type PromptVersion, type RestorePromptInput, restorePromptBody } from './prompt-schemas.js';

// A prompt's history: its versions, restoring one, and the prompts that reference it.

/** Makes version `n` current again, as a new version (history is never rewritten). */
export async function restorePrompt(
  deps: PromptDeps,
  actor: Actor,
  idOrSlug: string,
  input: RestorePromptInput,
  ifMatch?: string,
): Promise<{ id: string; slug: string; version: number; message: string }> {
  const data = parseInput(restorePromptBody, input);
  const target = await findPrompt(deps, actor, idOrSlug);
  const old = await deps.prompts.findVersion(actor.userId, target.id, data.version);
  if (!old) throw new NotFoundError('Prompt version');
  const { record, version } = await applyChange(
    deps,
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
      action: 'restored',
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
}

/**
 * The version a marketplace-only key is confined to (the prompt's marketplace pointer), if any: such a key
 * sees no other version of that prompt.
 */
async function marketplaceConfinement(deps: PromptDeps, actor: Actor, promptId: string) {
  if (!publishedPromptsOnly(actor.integrations)) return undefined;
  return (await deps.prompts.environmentVersion(actor.userId, promptId, { marketplace: true }))?.version;
}

export async function listVersions(deps: PromptDeps, actor: Actor, idOrSlug: string, query: PageRequest) {
  const record = await findPrompt(deps, actor, idOrSlug);
  const confined = await marketplaceConfinement(deps, actor, record.id);
  if (confined) {
    const versions =
      query.page === 1
        ? [toVersionSummary({ ...confined, commitMessage: confined.commit_message, createdAt: confined.created_at })]
        : [];
    return { versions, total: 1, page: query.page, per_page: query.per_page };
  }
  const page = await deps.prompts.listVersions(actor.userId, record.id, {
    offset: pageOffset(query),
    limit: query.per_page,
  });
  return { versions: page.items.map(toVersionSummary), total: page.total, page: query.page, per_page: query.per_page };
}

export async function getVersion(
  deps: PromptDeps,
  actor: Actor,
  idOrSlug: string,
  version: number,
): Promise<PromptVersion> {
  const record = await findPrompt(deps, actor, idOrSlug);
  const confined = await marketplaceConfinement(deps, actor, record.id);
  if (confined && confined.version !== version) throw new NotFoundError('Prompt version');
  const found = confined ?? (await deps.prompts.findVersion(actor.userId, record.id, version));
  if (!found) throw new NotFoundError('Prompt version');
  return found;
}

/** Prompts whose content references this one (by its slug), newest first. */
export async function referencedBy(deps: PromptDeps, actor: Actor, idOrSlug: string, query: PageRequest) {
  const record = await findPrompt(deps, actor, idOrSlug);
  const page = await deps.prompts.referencedBy(actor.userId, record.slug, {
    ...(publishedPromptsOnly(actor.integrations) && { status: 'published' as const }),
    offset: pageOffset(query),
    limit: query.per_page,
  });
  const items = await throughMarketplacePointers(deps.prompts, actor, page.items);
  return { prompts: items.map(toSummary), total: page.total, page: query.page, per_page: query.per_page };
}
