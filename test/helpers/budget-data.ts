import fc from 'fast-check';

/**
 * Content for the budget suites: sizes from one character to each field's limit, and the characters that make
 * JSON longer than the text (quotes, backslashes, control characters) or that a cut must not split (surrogate
 * pairs). Sampled with a fixed seed, so a failure can be replayed; the properties then vary budgets and pages.
 */
export const SEED = Number(process.env.BUDGET_SEED ?? 1616);

const pieces = fc.oneof(
  { weight: 5, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) },
  { weight: 2, arbitrary: fc.constantFrom('"', '\\', '\n', '\t', '\u0001', '😀', '𝄞', 'ü', ' deploy ', ' payment ') },
);

/** Text of about `length` characters (cut at a piece boundary, so never inside a surrogate pair). */
export function awkwardText(length: number, seed: number): string {
  const parts = fc.sample(fc.array(pieces, { minLength: 50, maxLength: 50 }), { numRuns: 1, seed })[0] ?? [];
  let text = '';
  for (let i = 0; text.length < length; i++) {
    const next = parts[i % parts.length] as string;
    if (text.length + next.length > length) break;
    text += next;
  }
  // Never blank (the services refuse blank text) and never ending in a lone half of a pair.
  return `w${text}`.replace(/\s+$/, '').replace(/[\ud800-\udbff]$/, '') || 'w';
}

/** Lengths spread over the whole range: many short ones, some long, a few at the limit. */
export function lengths(count: number, max: number, seed: number): number[] {
  return fc.sample(
    fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 300 }) },
      { weight: 3, arbitrary: fc.integer({ min: 300, max: Math.min(max, 5000) }) },
      { weight: 2, arbitrary: fc.integer({ min: 1, max }) },
      { weight: 1, arbitrary: fc.constant(max) },
    ),
    { numRuns: count, seed },
  );
}
