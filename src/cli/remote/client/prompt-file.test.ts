import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter, serializeFrontMatter } from './front-matter.js';
import { changedFields, fileToPrompt, type PromptFile, promptToFile } from './prompt-file.js';

/** Text with the characters that break naive front-matter handling: newlines, CR, ---, tabs, unicode. */
const tricky = (options: { minLength?: number } = {}) =>
  fc
    .array(
      fc.oneof(
        fc.string({ unit: 'grapheme' }),
        fc.constantFrom(
          '\n',
          '\r\n',
          '\r',
          '---',
          '\n---\n',
          '...',
          '  ',
          '\t',
          '{{ x }}',
          '@ref',
          '#',
          ': ',
          '"',
          "'",
        ),
      ),
      { minLength: options.minLength ?? 0, maxLength: 12 },
    )
    .map((parts) => parts.join(''));

const label = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
  .filter((s) => s.trim() === s && s.length > 0);

const promptFile: fc.Arbitrary<PromptFile> = fc.record(
  {
    slug: fc.stringMatching(/^[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,3}$/),
    title: tricky({ minLength: 1 }).filter((s) => s.length > 0),
    description: tricky(),
    labels: fc.uniqueArray(label, { maxLength: 10 }),
    status: fc.constantFrom('draft' as const, 'published' as const),
    available_in_mcp: fc.boolean(),
    variable_schema: fc.constantFrom(
      {},
      { topic: { description: 'What', enum: ['a', 'b'], default: 'a' } },
      { x: { required: false } },
    ),
    version: fc.integer({ min: 1, max: 1_000_000 }),
    content: tricky(),
  },
  {
    requiredKeys: [
      'slug',
      'title',
      'description',
      'labels',
      'status',
      'available_in_mcp',
      'variable_schema',
      'content',
    ],
  },
);

describe('prompt files', () => {
  it('round-trip: parse(serialize(p)) = p for any content, trailing newlines and whitespace included', () => {
    fc.assert(
      fc.property(promptFile, (prompt) => {
        expect(fileToPrompt(promptToFile(prompt), 'fallback')).toEqual(prompt);
      }),
      { numRuns: 500 },
    );
  });

  it('the body is the content plus one newline, so an editor keeping the final newline changes nothing', () => {
    const file = promptToFile({
      slug: 'a',
      title: 'A',
      description: '',
      labels: [],
      status: 'draft',
      available_in_mcp: false,
      variable_schema: {},
      version: 2,
      content: 'line\n\n',
    });
    expect(file.endsWith('---\nline\n\n\n')).toBe(true);
    // An editor that removed the final newline: still read as the content minus nothing it can't know about.
    expect(fileToPrompt(file.slice(0, -1), 'a').content).toBe('line\n');
    expect(fileToPrompt(file, 'a').content).toBe('line\n\n');
  });

  it('takes the slug from the file name when the front matter has none, and refuses unknown keys and bad values', () => {
    expect(fileToPrompt('---\ntitle: T\n---\nbody\n', 'from-name')).toMatchObject({
      slug: 'from-name',
      content: 'body',
      status: 'draft',
    });
    expect(() => fileToPrompt('---\ntitle: T\ntitel: x\n---\nbody', 'x')).toThrow(/titel/);
    expect(() => fileToPrompt('---\ntitle: T\nstatus: archived\n---\nb', 'x')).toThrow(/status/);
    expect(() => fileToPrompt('---\ntitle: T\nslug: Not A Slug\n---\nb', 'x')).toThrow(/slug/);
    expect(() => fileToPrompt('no front matter', 'x')).toThrow(/no front matter/);
    expect(() => fileToPrompt('---\ntitle: [unclosed\n---\nb', 'x')).toThrow(/not valid YAML/);
  });

  it('changedFields names exactly the fields that differ (labels normalised, key order ignored)', () => {
    const base: PromptFile = {
      slug: 's',
      title: 'T',
      description: 'D',
      labels: ['a', 'b'],
      status: 'draft',
      available_in_mcp: false,
      variable_schema: { v: { required: false, description: 'x' } },
      content: 'C',
    };
    expect(changedFields({ ...base, variable_schema: { v: { description: 'x', required: false } } }, base)).toEqual({});
    expect(changedFields({ ...base, title: ' T ' }, base)).toEqual({});
    expect(changedFields({ ...base, content: 'C\n', labels: ['b', 'a'] }, base)).toEqual({
      content: 'C\n',
      labels: ['b', 'a'],
    });
    expect(changedFields({ ...base, status: 'published' }, base)).toEqual({ status: 'published' });
  });
});

describe('front matter', () => {
  it('a body may contain --- lines; text without front matter is all body', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(fc.string(), fc.integer(), fc.boolean())),
        tricky(),
        (data, body) => {
          expect(parseFrontMatter(serializeFrontMatter(data, body))).toEqual({ data, body });
        },
      ),
      { numRuns: 300 },
    );
    expect(parseFrontMatter('# Title\n---\ntext')).toEqual({ data: undefined, body: '# Title\n---\ntext' });
    expect(parseFrontMatter('---\nunclosed: yes\n')).toEqual({ data: undefined, body: '---\nunclosed: yes\n' });
    expect(parseFrontMatter('---\r\ntitle: x\r\n---\r\nbody')).toEqual({ data: { title: 'x' }, body: 'body' });
    expect(parseFrontMatter('---\n---\nbody')).toEqual({ data: {}, body: 'body' });
    expect(() => parseFrontMatter('---\n- a list\n---\n')).toThrow(/mapping/);
  });
});
