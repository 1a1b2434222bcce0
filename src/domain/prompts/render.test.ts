import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandReferences, MAX_REFERENCE_DEPTH, PromptReferenceError, substituteVariables } from './template.js';

const contents = (entries: Record<string, string>) => new Map<string, string | undefined>(Object.entries(entries));

describe('expandReferences', () => {
  it('expands references recursively, in place', () => {
    const map = contents({ a: 'A(@b, @c)', b: 'B(@c)', c: 'C' });
    expect(expandReferences('a', map)).toBe('A(B(C), C)');
  });

  it('leaves e-mail addresses and text without references alone', () => {
    expect(expandReferences('a', contents({ a: 'mail me@b.co, no refs' }))).toBe('mail me@b.co, no refs');
  });

  it('names the chain of a missing target', () => {
    const map = contents({ a: 'x @b', b: 'y @gone' });
    map.set('gone', undefined);
    expect(() => expandReferences('a', map)).toThrow(PromptReferenceError);
    expect(() => expandReferences('a', map)).toThrow('@a → @b → @gone');
  });

  it('reports cycles, including self-references, instead of looping', () => {
    expect(() => expandReferences('a', contents({ a: '@a' }))).toThrow('cycle: @a → @a');
    expect(() => expandReferences('a', contents({ a: '@b', b: '@c', c: '@a' }))).toThrow('cycle: @a → @b → @c → @a');
  });

  it('allows the same prompt twice when it is not its own ancestor (a diamond)', () => {
    expect(expandReferences('a', contents({ a: '@b @c', b: '@d', c: '@d', d: 'D' }))).toBe('D D');
  });

  it(`expands ${MAX_REFERENCE_DEPTH} levels deep and refuses one more`, () => {
    const chain = (length: number) => {
      const map = new Map<string, string | undefined>();
      for (let i = 0; i < length; i++) map.set(`p${i}`, i === length - 1 ? 'end' : `@p${i + 1}`);
      return map;
    };
    expect(expandReferences('p0', chain(MAX_REFERENCE_DEPTH + 1))).toBe('end');
    expect(() => expandReferences('p0', chain(MAX_REFERENCE_DEPTH + 2))).toThrow(/nested more than 5/);
  });
});

describe('substituteVariables', () => {
  it('fills supplied variables, keeps missing ones as written and reports both', () => {
    const result = substituteVariables('Hi {{ name }}, {{name}} and {{ other }}!', { name: 'Ada', extra: 'x' });
    expect(result.content).toBe('Hi Ada, Ada and {{ other }}!');
    expect(result.used).toEqual(['name']);
    expect(result.missing).toEqual(['other']);
    expect(result.unknown).toEqual(['extra']);
  });

  it('inserts values literally, even when they look like placeholders or replacement patterns', () => {
    expect(substituteVariables('{{a}}', { a: '{{b}} $& $1' }).content).toBe('{{b}} $& $1');
  });

  it('leaves no placeholder of a declared variable when all are supplied, and is deterministic', () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { minLength: 1, maxLength: 5 }),
        fc.string({ maxLength: 20 }),
        (names, filler) => {
          const safe = filler.replace(/[{}]/g, '');
          const content = names.map((n) => `${safe}{{ ${n} }}`).join(' ');
          const values = Object.fromEntries(names.map((n) => [n, 'v']));
          const first = substituteVariables(content, values);
          for (const n of names) expect(first.content).not.toMatch(new RegExp(`\\{\\{\\s*${n}\\s*\\}\\}`));
          expect(substituteVariables(content, values)).toEqual(first);
        },
      ),
    );
  });
});
