/**
 * Hierarchical project names (api-decisions §6): segments of [A-Za-z0-9._-]+ joined by '/', at most
 * 200 characters; `null` means global.
 */
export const PROJECT_PATTERN = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;
export const PROJECT_MAX = 200;

/** Every proper ancestor, nearest first: `a/b/c` → [`a/b`, `a`]. */
export function ancestorsOf(project: string): string[] {
  const parts = project.split('/');
  const out: string[] = [];
  for (let i = parts.length - 1; i > 0; i--) out.push(parts.slice(0, i).join('/'));
  return out;
}

export const isDescendantOf = (candidate: string, project: string): boolean => candidate.startsWith(`${project}/`);
