import { formatCount } from '../common/format.js';

/**
 * Template rules (api-decisions §5). Dependency-free on purpose (format.ts is too): the dashboard's live preview imports
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

/**
 * The default largest rendered prompt, in characters (the server's `RENDER_MAX_CHARS`). Ten prompts at the
 * 100,000-character content limit fit; a handful of small prompts that reference each other dozens of times
 * (40⁵ expansions) do not, and are refused after at most this much work.
 */
export const DEFAULT_RENDER_MAX_CHARS = 1_000_000;

export type ReferenceProblem =
  | { kind: 'missing'; chain: string[] }
  | { kind: 'cycle'; chain: string[] }
  | { kind: 'depth'; chain: string[] };

const chainText = (chain: readonly string[]) => chain.map((slug) => `@${slug}`).join(' → ');

export class PromptReferenceError extends Error {
  constructor(readonly problem: ReferenceProblem) {
    const chain = chainText(problem.chain);
    super(
      problem.kind === 'missing'
        ? `Reference to a prompt that does not exist: ${chain}`
        : problem.kind === 'cycle'
          ? `References form a cycle: ${chain}`
          : `References are nested more than ${MAX_REFERENCE_DEPTH} levels deep: ${chain}`,
    );
  }
}

/** The rendered text would exceed the budget; `field` is what caused it (`references` or `variables.<name>`). */
export class RenderTooLargeError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const limitText = (maxChars: number) => `the limit of ${formatCount(maxChars)} characters`;

export interface ExpandOptions {
  /**
   * The largest result, in characters (default DEFAULT_RENDER_MAX_CHARS). Checked while the text is built,
   * so the work stops as soon as it is exceeded: a RenderTooLargeError naming the chain being expanded.
   */
  maxChars?: number;
  /**
   * `throw` (the default): a missing target, a cycle or a seventh level is a PromptReferenceError naming the
   * chain. `keep`: such a reference stays as written (`@slug`) and is listed in `broken`; a reference is then
   * a cycle when its target leads back to the referencing prompt, wherever it is reached from.
   */
  broken?: 'throw' | 'keep';
  /** Called once per actual expansion of a prompt's content (not for reuses): for tests and tracing. */
  onExpand?: (slug: string) => void;
}

export interface Expansion {
  content: string;
  /** Slugs whose content was inserted (the root excluded), in order of first expansion. */
  expanded: string[];
  /** With `broken: 'keep'`: the references left as written (`@slug`), distinct, in order of appearance. */
  broken: string[];
}

/**
 * References that are part of a cycle (`from → to` where `to` leads back to `from`), from the strongly
 * connected components of the graph in `contents` (Tarjan's algorithm, iterative: no recursion limit).
 */
function cyclicReferences(contents: ReadonlyMap<string, string | undefined>): Set<string> {
  const edges = new Map<string, string[]>();
  for (const [slug, content] of contents) {
    if (content === undefined) continue;
    edges.set(
      slug,
      extractReferencedSlugs(content).filter((target) => contents.get(target) !== undefined),
    );
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const component = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  let counter = 0;
  let components = 0;
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ slug: string; next: number }> = [{ slug: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { slug: string; next: number };
      const targets = edges.get(frame.slug) as string[];
      if (frame.next < targets.length) {
        const target = targets[frame.next++] as string;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ slug: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.slug, Math.min(low.get(frame.slug) as number, index.get(target) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.slug, Math.min(low.get(parent.slug) as number, low.get(frame.slug) as number));
      if (low.get(frame.slug) === index.get(frame.slug)) {
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.set(member, components);
        } while (member !== frame.slug);
        components++;
      }
    }
  }
  const cyclic = new Set<string>();
  for (const [from, targets] of edges) {
    for (const to of targets) if (component.get(from) === component.get(to)) cyclic.add(`${from} ${to}`);
  }
  return cyclic;
}

/**
 * Expands `@slug` references recursively. `contents` must hold every prompt reachable from `root`
 * (slug → content, or undefined when missing); loading them is the caller's business (a batch per level).
 *
 * Memoised per call: a prompt's expansion at a given remaining depth is built once and reused, so the work
 * is bounded by (depth levels × prompts) content scans plus the size of the result — which is itself
 * bounded by `maxChars`, counted as it grows. Without the budget being hit the result is exactly that of
 * the plain recursive expansion, errors included (a reused expansion is one that succeeded, so its subtree
 * holds no missing target and no cycle; only its depth matters, and that is part of the key).
 */
export function expandReferencesWith(
  root: string,
  contents: ReadonlyMap<string, string | undefined>,
  options: ExpandOptions = {},
): Expansion {
  const maxChars = options.maxChars ?? DEFAULT_RENDER_MAX_CHARS;
  const keep = options.broken === 'keep';
  const cyclic = keep ? cyclicReferences(contents) : undefined;
  const memo = new Map<string, string>();
  const expanded = new Set<string>();
  const broken = new Set<string>();
  // Characters in the partial expansions on the stack: all of them end up in the result, so this is a lower
  // bound of its length, and exceeding the budget here means the result would.
  let emitted = 0;
  const grow = (length: number, chain: readonly string[]) => {
    emitted += length;
    if (emitted > maxChars) {
      throw new RenderTooLargeError(
        'references',
        `The rendered prompt exceeds ${limitText(maxChars)} while expanding ${chainText(chain)}`,
      );
    }
  };

  const problemOf = (slug: string, target: string, chain: string[]): ReferenceProblem | undefined => {
    const next = [...chain, target];
    // The order of the plain expansion: a cycle, then depth, then a missing target.
    if (cyclic ? cyclic.has(`${slug} ${target}`) : chain.includes(target)) return { kind: 'cycle', chain: next };
    if (next.length - 1 > MAX_REFERENCE_DEPTH) return { kind: 'depth', chain: next };
    if (contents.get(target) === undefined) return { kind: 'missing', chain: next };
    return undefined;
  };

  const expand = (slug: string, chain: string[]): string => {
    options.onExpand?.(slug);
    const content = contents.get(slug) as string;
    let out = '';
    let last = 0;
    for (const match of content.matchAll(REFERENCE)) {
      const whole = match[0];
      const target = match[1] as string;
      if (target.length > MAX_REFERENCE_SLUG) continue;
      const literal = content.slice(last, match.index);
      grow(literal.length, chain);
      out += literal;
      last = match.index + whole.length;
      const problem = problemOf(slug, target, chain);
      if (problem) {
        if (!keep) throw new PromptReferenceError(problem);
        broken.add(whole);
        grow(whole.length, chain);
        out += whole;
        continue;
      }
      expanded.add(target);
      const next = [...chain, target];
      const key = `${next.length} ${target}`;
      let text = memo.get(key);
      if (text === undefined) {
        // Counted inside as it is built; once done it moves from its own frame into this one.
        text = expand(target, next);
        memo.set(key, text);
      } else {
        grow(text.length, next);
      }
      out += text;
    }
    const tail = content.slice(last);
    grow(tail.length, chain);
    return out + tail;
  };

  if (contents.get(root) === undefined) throw new PromptReferenceError({ kind: 'missing', chain: [root] });
  const content = expand(root, [root]);
  return { content, expanded: [...expanded], broken: [...broken] };
}

/** The expanded text (errors thrown); see expandReferencesWith. */
export function expandReferences(
  root: string,
  contents: ReadonlyMap<string, string | undefined>,
  options: Omit<ExpandOptions, 'broken'> = {},
): string {
  return expandReferencesWith(root, contents, options).content;
}

/**
 * Substitutes `{{ name }}` placeholders; missing variables stay as written. Reports which declared
 * variables were missing and which supplied ones the content does not use, for callers that are strict.
 * The result is bounded by `maxChars` while it is built (one value in many placeholders multiplies): past
 * it, a RenderTooLargeError naming the variable.
 */
export function substituteVariables(
  content: string,
  variables: Readonly<Record<string, string>>,
  maxChars = DEFAULT_RENDER_MAX_CHARS,
): { content: string; used: string[]; missing: string[]; unknown: string[] } {
  const declared = extractVariables(content);
  const declaredSet = new Set(declared);
  const missing = declared.filter((name) => !Object.hasOwn(variables, name));
  const unknown = Object.keys(variables).filter((name) => !declaredSet.has(name));
  let rendered = '';
  let last = 0;
  for (const match of content.matchAll(VARIABLE)) {
    const name = match[1] as string;
    const value = Object.hasOwn(variables, name) ? (variables[name] as string) : match[0];
    const literal = content.slice(last, match.index);
    if (rendered.length + literal.length + value.length > maxChars) {
      throw new RenderTooLargeError(
        `variables.${name}`,
        `The rendered prompt exceeds ${limitText(maxChars)} when {{${name}}} is filled in`,
      );
    }
    rendered += literal + value;
    last = match.index + match[0].length;
  }
  const tail = content.slice(last);
  if (rendered.length + tail.length > maxChars) {
    throw new RenderTooLargeError('content', `The rendered prompt exceeds ${limitText(maxChars)}`);
  }
  rendered += tail;
  return { content: rendered, used: declared.filter((name) => Object.hasOwn(variables, name)), missing, unknown };
}
