import { api } from './api';

const MAX_PAGES = 50;

/** Every slug of the user's prompts (for marking references the server has not judged yet), 100 at a time. */
export async function allSlugs(signal: AbortSignal): Promise<Set<string>> {
  const slugs = new Set<string>();
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await api.prompts({ page, per_page: 100 }, signal);
    for (const prompt of answer.prompts) slugs.add(prompt.slug);
    if (answer.prompts.length === 0 || page * answer.per_page >= answer.total) break;
  }
  return slugs;
}

/** `@slug` → `slug`. */
export const bare = (reference: string): string => reference.replace(/^@/, '');
