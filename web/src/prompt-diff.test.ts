import { describe, expect, it } from 'vitest';
import type { PromptVersion } from '../../src/contract';
import { contentDiff, schemaChanges } from './prompt-diff';
import { toDrafts, toSchema } from './schema-draft';

const version = (patch: Partial<PromptVersion>): PromptVersion => ({
  version: 1,
  title: 'T',
  description: '',
  content: '',
  labels: [],
  variable_schema: {},
  commit_message: null,
  created_at: '2026-01-01T00:00:00.000Z',
  ...patch,
});

describe('contentDiff', () => {
  it('diffs lines, ignoring a missing final newline', () => {
    const rows = contentDiff('a\nb', 'a\nb\nc', false);
    expect(rows.map((row) => (row.kind === 'skip' ? row.count : `${row.kind}:${row.text}`))).toEqual([
      'same:a',
      'same:b',
      'added:c',
    ]);
  });

  it('folds long unchanged runs, keeping three lines of context next to a change', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const after = before.replace('line 10', 'line ten');
    const rows = contentDiff(before, after, true);
    expect(rows.map((row) => (row.kind === 'skip' ? `skip ${row.count}` : row.text))).toEqual([
      'skip 7',
      'line 7',
      'line 8',
      'line 9',
      'line 10',
      'line ten',
      'line 11',
      'line 12',
      'line 13',
      'skip 6',
    ]);
    expect(new Set(rows.map((row) => row.key)).size).toBe(rows.length);
  });
});

describe('schemaChanges', () => {
  it('reports added, removed and changed variables, never reading through the prototype', () => {
    const before = version({ variable_schema: { a: { description: 'x' }, b: { default: 'z' }, c: {} } });
    const after = version({
      variable_schema: { a: { description: 'y', required: false }, constructor: { enum: ['p', 'q'] } },
    });
    expect(schemaChanges(before, after)).toEqual([
      { name: 'a', before: 'Required. x', after: 'Optional. y' },
      { name: 'b', before: 'Required. Default: z.', after: undefined },
      // c: an empty spec says nothing, like no spec
      { name: 'constructor', before: undefined, after: 'Required. One of: p, q.' },
    ]);
  });
});

describe('schema drafts', () => {
  it('round-trips a schema and keeps only the content’s variables with something to say', () => {
    const schema = { tone: { description: 'How', default: '', enum: ['', 'calm'] }, lang: { required: false } };
    const drafts = toDrafts(schema);
    expect(toSchema(drafts, ['tone', 'lang', 'other'])).toEqual({
      tone: { description: 'How', default: '', enum: ['calm'] },
      lang: { required: false },
    });
    expect(toSchema({ ...drafts, __proto__: drafts.lang } as never, ['__proto__'])).toEqual({});
  });
});
