/** Slugs (api-decisions §5): lowercase ASCII words joined by single hyphens, 1–100 characters. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX = 100;

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
