import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractReferencedSlugs, extractReferences, extractVariables } from './template.js';

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
    expect(extractVariables('{{not a var}}')).toEqual([]);
    expect(extractVariables('{{1abc}}')).toEqual([]);
    expect(extractVariables('{{ 9 }}')).toEqual([]);
    expect(extractVariables('{{with-hyphen}}')).toEqual([]);
    expect(extractVariables('{{dotted.name}}')).toEqual([]);
    expect(extractVariables('{{}}')).toEqual([]);
    expect(extractVariables('{{   }}')).toEqual([]);
    expect(extractVariables('{{émoji}}')).toEqual([]);
    expect(extractVariables('{{name!}}')).toEqual([]);
  });

  it('requires double braces on both sides', () => {
    expect(extractVariables('{name}')).toEqual([]);
    expect(extractVariables('{{name}')).toEqual([]);
    expect(extractVariables('{name}}')).toEqual([]);
    expect(extractVariables('{{name')).toEqual([]);
    expect(extractVariables('name}}')).toEqual([]);
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
    expect(extractReferences('mail me at alice@example.com')).toEqual([]);
    expect(extractReferences('first.last@example.org')).toEqual([]);
    expect(extractReferences('under_score@example.org')).toEqual([]);
    expect(extractReferences('12345@numbers.net')).toEqual([]);
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
    expect(extractReferences('@')).toEqual([]);
    expect(extractReferences('@ space')).toEqual([]);
    expect(extractReferences('@-leading')).toEqual([]);
    expect(extractReferences('@Upper')).toEqual([]);
    expect(extractReferences('@_under')).toEqual([]);
  });

  it('does not take a valid prefix of a token glued to a letter, digit or underscore', () => {
    expect(extractReferences('@fooBar')).toEqual([]);
    expect(extractReferences('@foo_bar')).toEqual([]);
    expect(extractReferences('@fooé')).toEqual([]);
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
