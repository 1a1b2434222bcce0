import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  expandReferences,
  expandReferencesWith,
  extractReferencedSlugs,
  extractReferences,
  extractVariables,
  MAX_REFERENCE_DEPTH,
  MAX_REFERENCE_SLUG,
  PromptReferenceError,
  REFERENCE,
  RenderTooLargeError,
  substituteVariables,
  VARIABLE,
} from './template.js';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';

/** Distinct values in order of first appearance: the reference model for both extractors. */
const distinctInOrder = (values: readonly string[]): string[] => [...new Set(values)];

const charsOf = (chars: string, min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...chars), minLength: min, maxLength: max });

/** `[A-Za-z_][A-Za-z0-9_]*` */
const variableName = fc
  .tuple(fc.constantFrom(...`${UPPER}${LOWER}_`), charsOf(`${UPPER}${LOWER}${DIGITS}_`, 0, 12))
  .map(([head, tail]) => head + tail);

/** Whitespace allowed inside the braces. */
const padding = charsOf(' \t\n\r', 0, 3);

/** Any text without braces, including arbitrary unicode. */
const braceFreeText = fc.string({ unit: 'binary', maxLength: 20 }).filter((s) => !s.includes('{') && !s.includes('}'));

/** `^[a-z0-9]+(?:-[a-z0-9]+)*$`, at most 100 characters. */
const slug = fc
  .array(charsOf(`${LOWER}${DIGITS}`, 1, 8), { minLength: 1, maxLength: 4 })
  .map((words) => words.join('-'))
  .filter((s) => s.length <= 100);

/** Characters that may precede `@` (not a letter, digit, `_`, `.` or `@`) and may follow a slug. */
const SEPARATOR_CHARS = [' ', '\n', '\t', ',', ';', ':', '!', '?', '(', ')', '[', ']', '"', "'", '/', '*', '#', '>'];
const separator = fc.string({ unit: fc.constantFrom(...SEPARATOR_CHARS), minLength: 1, maxLength: 3 });

/** Characters that glue to a following `@` and so make it not a reference. */
const GLUE_CHARS = [...UPPER, ...LOWER, ...DIGITS, '_', '.', '@', 'é', 'ß', 'Ж', '中', '٣'];

describe('extractVariables', () => {
  it('returns the names inside double braces', () => {
    expect(extractVariables('Hello {{name}}, you are {{age}} years old')).toEqual(['name', 'age']);
  });

  it('ignores whitespace inside the braces', () => {
    expect(extractVariables('{{ spaced }} {{\tTabbed\t}} {{\n  multi_line \n}}')).toEqual([
      'spaced',
      'Tabbed',
      'multi_line',
    ]);
  });

  it('does not treat anything other than a name as a variable', () => {
    for (const text of [
      '{{not a var}}',
      '{{1abc}}',
      '{{ 9 }}',
      '{{with-hyphen}}',
      '{{dotted.name}}',
      '{{}}',
      '{{   }}',
      '{{émoji}}',
      '{{name!}}',
    ]) {
      expect(extractVariables(text), text).toEqual([]);
    }
  });

  it('requires double braces on both sides', () => {
    for (const text of ['{name}', '{{name}', '{name}}', '{{name', 'name}}']) {
      expect(extractVariables(text), text).toEqual([]);
    }
  });

  it('accepts underscores, digits after the first character, and mixed case', () => {
    expect(extractVariables('{{_private}} {{x1}} {{camelCase}} {{SNAKE_CASE_2}} {{_}}')).toEqual([
      '_private',
      'x1',
      'camelCase',
      'SNAKE_CASE_2',
      '_',
    ]);
  });

  it('lists each name once, in order of first appearance', () => {
    expect(extractVariables('{{b}} {{a}} {{b}} {{ a }} {{c}} {{a}}')).toEqual(['b', 'a', 'c']);
  });

  it('is case-sensitive', () => {
    expect(extractVariables('{{Name}} {{name}} {{NAME}}')).toEqual(['Name', 'name', 'NAME']);
  });

  it('finds adjacent variables and variables inside surrounding text', () => {
    expect(extractVariables('{{a}}{{b}}x{{c}}')).toEqual(['a', 'b', 'c']);
    expect(extractVariables('prefix{{ a }}suffix')).toEqual(['a']);
  });

  it('returns an empty list for content without variables', () => {
    expect(extractVariables('')).toEqual([]);
    expect(extractVariables('plain text, no braces at all')).toEqual([]);
  });

  it('property: names interleaved with brace-free filler come back distinct and in first-appearance order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(braceFreeText, variableName, padding, padding), { maxLength: 12 }),
        braceFreeText,
        (parts, tail) => {
          const content =
            parts.map(([filler, name, before, after]) => `${filler}{{${before}${name}${after}}}`).join('') + tail;
          expect(extractVariables(content)).toEqual(distinctInOrder(parts.map(([, name]) => name)));
        },
      ),
    );
  });

  it('property: names drawn from a small pool (many duplicates) keep first-appearance order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 30 }), (names) => {
        const content = names.map((name) => `{{ ${name} }}`).join(' and ');
        expect(extractVariables(content)).toEqual(distinctInOrder(names));
      }),
    );
  });

  it('property: a braced string that is not a valid name is never a variable', () => {
    const notAName = fc
      .string({ unit: 'binary', minLength: 1, maxLength: 12 })
      .filter((s) => !s.includes('{') && !s.includes('}') && !/^\s*[A-Za-z_][A-Za-z0-9_]*\s*$/.test(s));
    fc.assert(
      fc.property(notAName, (inner) => {
        expect(extractVariables(`{{${inner}}}`)).toEqual([]);
      }),
    );
  });

  it('property: never throws and never returns duplicates or invalid names, for any string', () => {
    const anyString = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom('{', '}', ' ', 'a', 'B', '_', '1', '-') }),
      // lone surrogates and other odd UTF-16
      fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
    );
    fc.assert(
      fc.property(anyString, (content) => {
        const names = extractVariables(content);
        expect(new Set(names).size).toBe(names.length);
        for (const name of names) {
          expect(name).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
          expect(content).toContain(name);
        }
      }),
    );
  });
});

describe('extractReferences', () => {
  it('returns @slug tokens with the @', () => {
    expect(extractReferences('See @code-review and @style-guide-2 for details')).toEqual([
      '@code-review',
      '@style-guide-2',
    ]);
  });

  it('extractReferencedSlugs returns the same slugs without the @', () => {
    expect(extractReferencedSlugs('See @code-review and @style-guide-2 for details')).toEqual([
      'code-review',
      'style-guide-2',
    ]);
  });

  it('accepts a reference at the very start of the content', () => {
    expect(extractReferences('@intro then text')).toEqual(['@intro']);
  });

  it('accepts a reference at the very end, and before sentence punctuation', () => {
    expect(extractReferences('use @outro')).toEqual(['@outro']);
    expect(extractReferences('use @outro.')).toEqual(['@outro']);
    expect(extractReferences('use @a, @b; @c! (@d) "@e"')).toEqual(['@a', '@b', '@c', '@d', '@e']);
  });

  it('does not count e-mail addresses', () => {
    for (const text of [
      'mail me at alice@example.com',
      'first.last@example.org',
      'under_score@example.org',
      '12345@numbers.net',
    ]) {
      expect(extractReferences(text), text).toEqual([]);
    }
    expect(extractReferences('alice@example.com and @real-ref')).toEqual(['@real-ref']);
  });

  it('does not count an @ that follows a letter, digit, _, . or @', () => {
    for (const glue of ['a', 'Z', '5', '_', '.', '@']) {
      expect(extractReferences(`x${glue}@target`), `after ${JSON.stringify(glue)}`).toEqual([]);
    }
    expect(extractReferences('@@double')).toEqual([]);
  });

  it('counts an @ that follows a hyphen, slash, bracket or newline', () => {
    expect(extractReferences('pre-@one /@two [@three]\n@four')).toEqual(['@one', '@two', '@three', '@four']);
  });

  it('ignores tokens that are not valid slugs', () => {
    for (const text of ['@', '@ space', '@-leading', '@Upper', '@_under']) {
      expect(extractReferences(text), text).toEqual([]);
    }
  });

  it('does not take a valid prefix of a token glued to a letter, digit or underscore', () => {
    for (const text of ['@fooBar', '@foo_bar', '@fooé']) {
      expect(extractReferences(text), text).toEqual([]);
    }
  });

  it('stops a slug at a hyphen that is not followed by a slug word', () => {
    expect(extractReferences('@foo- bar')).toEqual(['@foo']);
    expect(extractReferences('@foo--bar')).toEqual(['@foo']);
  });

  it('lists each reference once, in order of first appearance', () => {
    expect(extractReferences('@b @a @b\n@a @c')).toEqual(['@b', '@a', '@c']);
  });

  it('accepts a 100-character slug and skips a longer one', () => {
    const hundred = 'a'.repeat(100);
    expect(extractReferences(`@${hundred}`)).toEqual([`@${hundred}`]);
    expect(extractReferences(`@${hundred}b`)).toEqual([]);
    expect(extractReferences(`@${'ab-'.repeat(40)}x`)).toEqual([]);
  });

  it('returns an empty list for content without references', () => {
    expect(extractReferences('')).toEqual([]);
    expect(extractReferences('no at-signs here')).toEqual([]);
  });

  it('property: slugs separated by spaces, newlines or punctuation come back distinct and in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(separator, slug), { maxLength: 12 }),
        separator,
        fc.boolean(),
        (parts, tail, first) => {
          // Optionally drop the leading separator so that a reference can start the content.
          const content = parts.map(([sep, s], i) => (i === 0 && first ? `@${s}` : `${sep}@${s}`)).join('') + tail;
          const expected = distinctInOrder(parts.map(([, s]) => s));
          expect(extractReferencedSlugs(content)).toEqual(expected);
          expect(extractReferences(content)).toEqual(expected.map((s) => `@${s}`));
        },
      ),
    );
  });

  it('property: a letter, digit, _, . or @ before the @ removes the reference', () => {
    fc.assert(
      fc.property(fc.constantFrom(...GLUE_CHARS), slug, separator, (glue, s, sep) => {
        expect(extractReferences(`${glue}@${s}`)).toEqual([]);
        expect(extractReferences(`${sep}${glue}@${s}${sep}`)).toEqual([]);
        // ...while the same slug with a separator in front is found.
        expect(extractReferences(`${sep}@${s}${sep}`)).toEqual([`@${s}`]);
      }),
    );
  });

  it('property: never throws and never returns duplicates or malformed references, for any string', () => {
    const anyString = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom('@', 'a', '1', '-', '.', ' ', '_', 'B', 'é') }),
      fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
    );
    fc.assert(
      fc.property(anyString, (content) => {
        const refs = extractReferences(content);
        expect(new Set(refs).size).toBe(refs.length);
        for (const ref of refs) {
          expect(ref).toMatch(/^@[a-z0-9]+(?:-[a-z0-9]+)*$/);
          expect(ref.length).toBeLessThanOrEqual(101);
          expect(content).toContain(ref);
        }
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// Reference expansion: memoised and budgeted, checked against the plain recursive expansion.

/** The plain recursive expansion (the implementation before memoisation): the reference model. */
function naiveExpand(root: string, contents: ReadonlyMap<string, string | undefined>): string {
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

/** Whether `to` leads back to `from` (plain graph search): the model of a cyclic reference. */
function leadsBack(contents: ReadonlyMap<string, string | undefined>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const queue = [to];
  while (queue.length > 0) {
    const slug = queue.shift() as string;
    if (slug === from) return true;
    if (seen.has(slug)) continue;
    seen.add(slug);
    const content = contents.get(slug);
    if (content !== undefined) queue.push(...extractReferencedSlugs(content));
  }
  return false;
}

/** The plain expansion that keeps broken references as written (the model of `broken: 'keep'`). */
function naiveKeep(root: string, contents: ReadonlyMap<string, string | undefined>): string {
  const expand = (slug: string, depth: number): string =>
    (contents.get(slug) as string).replace(REFERENCE, (whole, target: string) => {
      if (target.length > MAX_REFERENCE_SLUG) return whole;
      const broken =
        leadsBack(contents, slug, target) || depth + 1 > MAX_REFERENCE_DEPTH || contents.get(target) === undefined;
      return broken ? whole : expand(target, depth + 1);
    });
  return expand(root, 0);
}

const outcome = (run: () => string): { text: string } | { error: string; kind: string } => {
  try {
    return { text: run() };
  } catch (error) {
    return { error: (error as Error).message, kind: (error as Error).constructor.name };
  }
};

/**
 * A small graph over p0…p7 (p8 never exists): text and references, cycles, missing targets and chains
 * longer than the depth limit included (eight prompts make a chain of seven possible without a repeat).
 */
const SLUGS = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'];
const promptGraph = fc
  .array(
    fc.array(
      fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom('x', 'yz', ' ', '. ', 'mail a@p1 ', '{{v}}') },
        { weight: 3, arbitrary: fc.constantFrom(...SLUGS).map((slug) => `@${slug} `) },
      ),
      { minLength: 1, maxLength: 3 },
    ),
    { minLength: 8, maxLength: 8 },
  )
  .map((bodies) => {
    const map = new Map<string, string | undefined>(bodies.map((parts, i) => [`p${i}`, parts.join('')]));
    map.set('p8', undefined);
    return map;
  });

describe('expandReferencesWith', () => {
  it('property: without hitting the budget, the result and every error equal the plain expansion', () => {
    fc.assert(
      fc.property(promptGraph, (graph) => {
        const naive = outcome(() => naiveExpand('p0', graph));
        const memoised = outcome(() => expandReferences('p0', graph, { maxChars: Number.MAX_SAFE_INTEGER }));
        expect(memoised).toEqual(naive);
      }),
      { numRuns: 500 },
    );
  });

  it('the generated graphs cover every outcome: text, missing, cycle and depth', () => {
    const kinds = new Set<string>();
    for (const graph of fc.sample(promptGraph, { numRuns: 500, seed: 42 })) {
      const naive = outcome(() => naiveExpand('p0', graph));
      kinds.add('text' in naive ? 'text' : (naive.error.split(':')[0] as string));
    }
    expect([...kinds].sort()).toEqual([
      'Reference to a prompt that does not exist',
      'References are nested more than 5 levels deep',
      'References form a cycle',
      'text',
    ]);
  });

  it('property: the budget error comes exactly when the plain result would exceed it, never a wrong result', () => {
    fc.assert(
      fc.property(promptGraph, fc.nat({ max: 2000 }), (graph, maxChars) => {
        const naive = outcome(() => naiveExpand('p0', graph));
        const budgeted = outcome(() => expandReferences('p0', graph, { maxChars }));
        if ('text' in naive && naive.text.length <= maxChars) expect(budgeted).toEqual(naive);
        else if ('text' in naive) expect(budgeted).toMatchObject({ kind: 'RenderTooLargeError' });
        // The plain expansion fails: the same error, or the budget ran out before reaching it.
        else expect(['RenderTooLargeError', naive.kind]).toContain((budgeted as { kind: string }).kind);
        if ('kind' in budgeted && budgeted.kind === 'PromptReferenceError') expect(budgeted).toEqual(naive);
      }),
      { numRuns: 500 },
    );
  });

  it('property: each prompt is expanded at most once per depth, whatever the references', () => {
    fc.assert(
      fc.property(promptGraph, fc.constantFrom<'throw' | 'keep'>('throw', 'keep'), (graph, broken) => {
        const counts = new Map<string, number>();
        const onExpand = (slug: string) => counts.set(slug, (counts.get(slug) ?? 0) + 1);
        try {
          expandReferencesWith('p0', graph, { broken, onExpand, maxChars: Number.MAX_SAFE_INTEGER });
        } catch {
          // Errors stop the work early; the bound holds either way.
        }
        for (const count of counts.values()) expect(count).toBeLessThanOrEqual(MAX_REFERENCE_DEPTH + 1);
      }),
      { numRuns: 300 },
    );
  });

  it('property: `keep` never throws a reference error, leaves exactly the broken references as written, and equals the plain expansion when nothing is broken', () => {
    fc.assert(
      fc.property(promptGraph, (graph) => {
        const kept = expandReferencesWith('p0', graph, { broken: 'keep', maxChars: Number.MAX_SAFE_INTEGER });
        expect(kept.content).toBe(naiveKeep('p0', graph));
        const naive = outcome(() => naiveExpand('p0', graph));
        if ('text' in naive) {
          expect(kept.content).toBe(naive.text);
          expect(kept.broken).toEqual([]);
        } else {
          expect(kept.broken.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  // The case of the report: six prompts, each referencing the next 40 times (40⁵ plain expansions).
  const amplifier = (references: number) =>
    new Map<string, string | undefined>(
      Array.from({ length: 6 }, (_, i) => [
        `p${i}`,
        i === 5 ? 'leaf text' : Array.from({ length: references }, () => `@p${i + 1}`).join(' '),
      ]),
    );

  it('refuses the 6 × 40 amplification after expanding each prompt once, naming the chain that overflowed', () => {
    const counts = new Map<string, number>();
    const run = () =>
      expandReferencesWith('p0', amplifier(40), {
        maxChars: 1_000_000,
        onExpand: (slug) => counts.set(slug, (counts.get(slug) ?? 0) + 1),
      });
    expect(run).toThrow(RenderTooLargeError);
    expect(run).toThrow(/exceeds the limit of 1,000,000 characters while expanding @p0 → @p1/);
    for (const count of counts.values()) expect(count).toBe(2); // two runs above, once each
    expect([...counts.keys()].sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
  });

  it('renders a large amplification within the budget from one expansion per prompt', () => {
    const counts = new Map<string, number>();
    const { content, expanded } = expandReferencesWith('p0', amplifier(12), {
      maxChars: 3_000_000,
      onExpand: (slug) => counts.set(slug, (counts.get(slug) ?? 0) + 1),
    });
    expect(content).toBe(naiveExpand('p0', amplifier(12)));
    expect(content.length).toBeGreaterThan(1_000_000);
    expect([...counts.values()]).toEqual([1, 1, 1, 1, 1, 1]);
    expect(expanded).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
  });

  it('names the reused expansion that overflowed, and the budget includes the text around it', () => {
    const map = new Map([
      ['a', '@b @b'],
      ['b', 'x'.repeat(60)],
    ]);
    expect(expandReferences('a', map, { maxChars: 121 })).toBe(`${'x'.repeat(60)} ${'x'.repeat(60)}`);
    expect(() => expandReferences('a', map, { maxChars: 120 })).toThrow(/while expanding @a → @b$/);
    expect(() => expandReferences('a', map, { maxChars: 59 })).toThrow(/while expanding @a → @b$/);
  });

  it('keeps missing, cyclic and too deep references as written and lists them once', () => {
    const map = new Map<string, string | undefined>([
      ['a', 'A @gone @b @a'],
      ['b', 'B @c @gone'],
      ['c', 'C @b'],
    ]);
    map.set('gone', undefined);
    const kept = expandReferencesWith('a', map, { broken: 'keep' });
    // a → a and b ⇄ c are cycles; @gone does not exist.
    expect(kept.content).toBe('A @gone B @c @gone @a');
    expect(kept.broken).toEqual(['@gone', '@c', '@a']);
    expect(kept.expanded).toEqual(['b']);
  });
});

describe('substituteVariables within a budget', () => {
  it('refuses a value repeated in many placeholders, naming the variable', () => {
    const content = '{{v}} '.repeat(1000);
    expect(() => substituteVariables(content, { v: 'x'.repeat(1000) }, 100_000)).toThrow(RenderTooLargeError);
    expect(() => substituteVariables(content, { v: 'x'.repeat(1000) }, 100_000)).toThrow(
      'The rendered prompt exceeds the limit of 100,000 characters when {{v}} is filled in',
    );
    expect(substituteVariables(content, { v: 'x'.repeat(10) }, 100_000).content).toBe('xxxxxxxxxx '.repeat(1000));
  });

  it('property: equals plain replacement when within the budget, and refuses exactly when it would not be', () => {
    const part = fc.constantFrom('{{a}}', '{{ b }}', '{{c}}', 'text ', '{', '}}');
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 20 }),
        fc.dictionary(fc.constantFrom('a', 'b'), fc.string({ maxLength: 30 })),
        fc.nat({ max: 300 }),
        (parts, values, maxChars) => {
          const content = parts.join('');
          const plain = content.replace(VARIABLE, (whole, name: string) =>
            Object.hasOwn(values, name) ? (values[name] as string) : whole,
          );
          if (plain.length <= maxChars) expect(substituteVariables(content, values, maxChars).content).toBe(plain);
          else expect(() => substituteVariables(content, values, maxChars)).toThrow(RenderTooLargeError);
        },
      ),
      { numRuns: 500 },
    );
  });
});
