/**
 * Versions as HTTP validators: the ETag of a versioned object (prompt, artifact) is `"<version>"`.
 * Transport-neutral so that services can check `If-Match` themselves, inside their retry loops.
 */
export const etagOf = (version: number) => `"${version}"`;

/**
 * `If-Match` against the current version. Accepts `*`, a list, and weak tags; anything else never
 * matches. No header allows everything.
 */
export function ifMatchAllows(header: string | undefined, version: number): boolean {
  if (header === undefined) return true;
  const tags = header.split(',').map((tag) => tag.trim());
  return tags.some((tag) => tag === '*' || tag.replace(/^W\//, '') === etagOf(version));
}
