import { fetchAllPages } from '../../src/contract';
import { api } from './api';

/** Enough for any real library; the form stays quick even for an account with far more prompts. */
const MAX_PAGES = 50;

/** Every slug of the user's prompts (for marking references the server has not judged yet), 100 at a time. */
export async function allSlugs(signal: AbortSignal): Promise<Set<string>> {
  const prompts = await fetchAllPages(async (page, per_page) => {
    const answer = await api.prompts({ page, per_page }, signal);
    return { items: answer.prompts, total: answer.total };
  }, MAX_PAGES);
  return new Set(prompts.map((prompt) => prompt.slug));
}

/** `@slug` → `slug`. */
export const bare = (reference: string): string => reference.replace(/^@/, '');
