/**
 * Template rules (api-decisions §5). Dependency-free on purpose: the dashboard's live preview imports
 * this same file, so the browser and the server can never disagree about a variable or a reference.
 *
 * - Variables: `{{ name }}` with name `[A-Za-z_][A-Za-z0-9_]*`; whitespace inside the braces is ignored;
 *   anything else in braces is not a variable.
 * - References: `@slug` where the `@` starts the text or follows a character that is not a letter, digit,
 *   `_`, `.` or `@` (so e-mail addresses are not references), and the slug is not glued to a following
 *   letter, digit or `_`.
 * Both lists are distinct and in order of first appearance.
 */
export const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
export const REFERENCE = /(?<![\p{L}\p{N}_.@])@([a-z0-9]+(?:-[a-z0-9]+)*)(?![\p{L}\p{N}_])/gu;
/** Longer `@…` tokens cannot be slugs and are not references. */
export const MAX_REFERENCE_SLUG = 100;

function distinctMatches(content: string, pattern: RegExp): string[] {
  const seen = new Set<string>();
  for (const match of content.matchAll(pattern)) {
    const value = match[1];
    if (value !== undefined) seen.add(value);
  }
  return [...seen];
}

export const extractVariables = (content: string): string[] => distinctMatches(content, VARIABLE);

/** Referenced slugs, without the `@`. */
export const extractReferencedSlugs = (content: string): string[] =>
  distinctMatches(content, REFERENCE).filter((slug) => slug.length <= MAX_REFERENCE_SLUG);

/** References as the API shows them: `@slug`. */
export const extractReferences = (content: string): string[] =>
  extractReferencedSlugs(content).map((slug) => `@${slug}`);

/** References expand at most this deep (api-decisions, prompt lifecycle). */
export const MAX_REFERENCE_DEPTH = 5;

export type ReferenceProblem =
  | { kind: 'missing'; chain: string[] }
  | { kind: 'cycle'; chain: string[] }
  | { kind: 'depth'; chain: string[] };

export class PromptReferenceError extends Error {
  constructor(readonly problem: ReferenceProblem) {
    const chain = problem.chain.map((slug) => `@${slug}`).join(' → ');
    super(
      problem.kind === 'missing'
        ? `Reference to a prompt that does not exist: ${chain}`
        : problem.kind === 'cycle'
          ? `References form a cycle: ${chain}`
          : `References are nested more than ${MAX_REFERENCE_DEPTH} levels deep: ${chain}`,
    );
  }
}

/**
 * Expands `@slug` references recursively. `contents` must hold every prompt reachable from `root`
 * (slug → content, or undefined when missing); loading them is the caller's business (a batch per level).
 * Throws PromptReferenceError naming the chain for a missing target, a cycle or too deep a nesting.
 */
export function expandReferences(root: string, contents: ReadonlyMap<string, string | undefined>): string {
  const expand = (slug: string, chain: string[]): string => {
    const content = contents.get(slug);
    if (content === undefined) throw new PromptReferenceError({ kind: 'missing', chain });
    return content.replace(REFERENCE, (whole, target: string) => {
      if (target.length > MAX_REFERENCE_SLUG) return whole;
      const next = [...chain, target];
      if (chain.includes(target)) throw new PromptReferenceError({ kind: 'cycle', chain: next });
      if (next.length - 1 > MAX_REFERENCE_DEPTH) throw new PromptReferenceError({ kind: 'depth', chain: next });
      return expand(target, next);
    });
  };
  return expand(root, [root]);
}

/**
 * Substitutes `{{ name }}` placeholders; missing variables stay as written. Reports which declared
 * variables were missing and which supplied ones the content does not use, for callers that are strict.
 */
export function substituteVariables(
  content: string,
  variables: Readonly<Record<string, string>>,
): { content: string; used: string[]; missing: string[]; unknown: string[] } {
  const declared = extractVariables(content);
  const missing = declared.filter((name) => !Object.hasOwn(variables, name));
  const unknown = Object.keys(variables).filter((name) => !declared.includes(name));
  const rendered = content.replace(VARIABLE, (whole, name: string) =>
    Object.hasOwn(variables, name) ? (variables[name] as string) : whole,
  );
  return { content: rendered, used: declared.filter((name) => Object.hasOwn(variables, name)), missing, unknown };
}
