import { SLUG_MAX, SLUG_PATTERN } from '../../contract/index.js';
import { ConflictError } from './errors.js';

/** Slugs (api-decisions §5): lowercase ASCII words joined by single hyphens, 1–100 characters. */
export { SLUG_MAX, SLUG_PATTERN };

export function isValidSlug(value: string): boolean {
  return value.length >= 1 && value.length <= SLUG_MAX && SLUG_PATTERN.test(value);
}

/**
 * Slug from a title: lowercased, accents folded, every run of other characters one hyphen,
 * trimmed to 100 characters without a trailing hyphen; `fallback` when nothing is left.
 */
export function slugify(title: string, fallback = 'prompt'): string {
  const folded = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const slug = folded
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/, '');
  return slug || fallback;
}

/**
 * First free slug among `base`, `base-2`, `base-3`, …, given the taken ones that start with `base`.
 * The suffix is counted into the 100-character limit.
 */
export function uniqueSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * The first free slug for `base` in a user's namespace, given a lookup of the slugs that start with a prefix.
 * Suffixes are at most a few characters, so slugs sharing the first 90 characters cover every candidate.
 */
export async function freeSlug(
  base: string,
  slugsStartingWith: (prefix: string) => Promise<readonly string[]>,
): Promise<string> {
  return uniqueSlug(base, new Set(await slugsStartingWith(base.slice(0, SLUG_MAX - 10))));
}

/** Attempts at a generated slug before giving up under a storm of concurrent creates with one title. */
export const SLUG_ATTEMPTS = 5;

/**
 * Inserts under a slug: the client's (`given`), or a generated one (`generate`). A concurrent create that
 * takes the generated slug first makes the insert fail on the unique index (a `ConflictError`), and the slug
 * is picked again, up to SLUG_ATTEMPTS times. A slug the client supplied is never changed: its clash is the
 * 409 `clash` builds.
 */
export async function insertWithSlug<T>(
  given: string | undefined,
  generate: () => Promise<string>,
  insert: (slug: string) => Promise<T>,
  clash: (slug: string) => ConflictError,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const slug = given ?? (await generate());
    try {
      return await insert(slug);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      if (given !== undefined) throw clash(given);
      if (attempt >= SLUG_ATTEMPTS) throw error;
    }
  }
}
