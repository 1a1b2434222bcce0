import { PROJECT_MAX, PROJECT_PATTERN } from '../../contract/index.js';
import { ValidationError } from './errors.js';

/**
 * Hierarchical project names (api-decisions §6): segments of [A-Za-z0-9._-]+ joined by '/', at most
 * 200 characters; `null` means global. The pattern is linear: segments cannot contain '/', so there is
 * one way to match any string.
 */
export { PROJECT_MAX, PROJECT_PATTERN };

/** The schemas' messages (field-schemas.ts uses them), so every surface says the same. */
export const PROJECT_MESSAGES = {
  length: `Project name must be at most ${PROJECT_MAX} characters`,
  pattern: 'Project name must be segments of letters, digits, ., _ or - separated by single slashes',
} as const;

/** Why `project` is not a valid project name, or undefined when it is: the length before the pattern. */
export function projectNameProblem(project: string): string | undefined {
  if (project.length > PROJECT_MAX) return PROJECT_MESSAGES.length;
  if (!PROJECT_PATTERN.test(project)) return PROJECT_MESSAGES.pattern;
  return undefined;
}

/** The domain's own check, whatever the caller validated: a 400 naming `field`. */
export function assertProjectName(project: string, field = 'project_name'): void {
  const problem = projectNameProblem(project);
  if (problem !== undefined) throw new ValidationError({ [field]: problem });
}

/**
 * Every proper ancestor, nearest first: `a/b/c` → [`a/b`, `a`]. One backward scan with a slice per
 * slash, so the work is linear in the length of the name (joining split segments per ancestor was
 * quadratic: a name of 100,000 segments exhausted the heap).
 */
export function ancestorsOf(project: string): string[] {
  const out: string[] = [];
  for (let at = project.lastIndexOf('/'); at > 0; at = project.lastIndexOf('/', at - 1)) {
    out.push(project.slice(0, at));
  }
  return out;
}

export const isDescendantOf = (candidate: string, project: string): boolean => candidate.startsWith(`${project}/`);
