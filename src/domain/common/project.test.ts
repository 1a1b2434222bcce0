import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.js';
import { projectNameSchema } from './field-schemas.js';
import {
  ancestorsOf,
  assertProjectName,
  isDescendantOf,
  PROJECT_MAX,
  PROJECT_MESSAGES,
  PROJECT_PATTERN,
  projectNameProblem,
} from './project.js';

const SEGMENT_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-';
const segmentArb = fc.string({ unit: fc.constantFrom(...SEGMENT_CHARS), minLength: 1, maxLength: 8 });
const segmentsArb = fc.array(segmentArb, { minLength: 1, maxLength: 10 });
const projectArb = segmentsArb.map((segments) => segments.join('/'));

describe('ancestorsOf', () => {
  it('lists every proper ancestor, nearest first', () => {
    expect(ancestorsOf('a/b/c')).toEqual(['a/b', 'a']);
    expect(ancestorsOf('acme/backend')).toEqual(['acme']);
    expect(ancestorsOf('w/x/y/z')).toEqual(['w/x/y', 'w/x', 'w']);
  });

  it('is empty for a top-level project', () => {
    expect(ancestorsOf('a')).toEqual([]);
    expect(ancestorsOf('acme.io')).toEqual([]);
  });

  it('gives segments − 1 ancestors, each a prefix of the path followed by "/", nearest first', () => {
    fc.assert(
      fc.property(segmentsArb, (segments) => {
        const project = segments.join('/');
        const ancestors = ancestorsOf(project);
        expect(ancestors).toHaveLength(segments.length - 1);
        ancestors.forEach((ancestor, i) => {
          expect(project.startsWith(`${ancestor}/`), ancestor).toBe(true);
          expect(ancestor).toBe(segments.slice(0, segments.length - 1 - i).join('/'));
          expect(PROJECT_PATTERN.test(ancestor)).toBe(true);
          expect(isDescendantOf(project, ancestor)).toBe(true);
        });
        expect(new Set(ancestors).size).toBe(ancestors.length);
      }),
    );
  });
});

describe('isDescendantOf', () => {
  it('is true only for strict descendants', () => {
    expect(isDescendantOf('a/b', 'a')).toBe(true);
    expect(isDescendantOf('a/b/c', 'a')).toBe(true);
    expect(isDescendantOf('a/b/c', 'a/b')).toBe(true);
  });

  it('is false for the project itself, name-prefix siblings, ancestors and unrelated projects', () => {
    for (const candidate of ['ab', 'a', 'a-b/c', 'ab/c', 'b/a', 'b']) {
      expect(isDescendantOf(candidate, 'a'), candidate).toBe(false);
    }
    expect(isDescendantOf('a', 'a/b')).toBe(false);
    expect(isDescendantOf('acme/backend2', 'acme/backend')).toBe(false);
    expect(isDescendantOf('acme/backend2/x', 'acme/backend')).toBe(false);
  });

  it('holds exactly when the project is one of the candidate’s ancestors', () => {
    const near = fc
      .array(fc.constantFrom('a', 'b', 'ab', 'a-b'), { minLength: 1, maxLength: 4 })
      .map((s) => s.join('/'));
    fc.assert(
      fc.property(fc.oneof(near, projectArb), fc.oneof(near, projectArb), (candidate, project) => {
        expect(isDescendantOf(candidate, project)).toBe(ancestorsOf(candidate).includes(project));
      }),
    );
  });
});

describe('PROJECT_PATTERN', () => {
  it('accepts segments of [A-Za-z0-9._-] joined by single slashes', () => {
    for (const ok of ['a', 'acme', 'acme/backend', 'a/b/c', 'A-Z_0.9', 'v1.2/release-3/x_y', '.', '-', '_', 'a/./b']) {
      expect(PROJECT_PATTERN.test(ok), ok).toBe(true);
    }
    fc.assert(fc.property(projectArb, (project) => PROJECT_PATTERN.test(project)));
  });

  it('rejects empty segments, leading or trailing slashes, spaces and other characters', () => {
    const bad = [
      '',
      '/',
      '//',
      '/a',
      'a/',
      '/a/',
      'a//b',
      'a b',
      ' a',
      'a ',
      'a/ b',
      'a\tb',
      'a\nb',
      'a\n',
      'crème',
      'naïve/x',
      'a/ß',
      '项目',
      'a\\b',
      'a:b',
      'a@b',
      'a+b',
      'a*b',
      'a\u200bb',
      'ａ',
    ];
    for (const value of bad) expect(PROJECT_PATTERN.test(value), JSON.stringify(value)).toBe(false);
  });

  it('rejects any valid path with a slash or a foreign character added', () => {
    const foreign = fc.constantFrom(' ', '\t', '\n', '/', '\\', 'é', 'ß', '中', '😀', '#', '?', '%', '\u0000');
    fc.assert(
      fc.property(projectArb, fc.nat(), foreign, (project, at, char) => {
        const i = at % (project.length + 1);
        const edited = project.slice(0, i) + char + project.slice(i);
        // A slash inside the path between two non-slash characters makes another valid path.
        const stillValid = char === '/' && i > 0 && i < project.length && project[i - 1] !== '/' && project[i] !== '/';
        expect(PROJECT_PATTERN.test(edited), JSON.stringify(edited)).toBe(stillValid);
      }),
    );
  });
});

describe('project names at hostile sizes', () => {
  it('lists ancestors of a 100,000-segment name in linear work (each ancestor a slice of the name)', () => {
    const project = `a${'/a'.repeat(100_000)}`;
    const ancestors = ancestorsOf(project);
    expect(ancestors).toHaveLength(100_000);
    expect(ancestors[0]).toBe(project.slice(0, -2));
    expect(ancestors.at(-1)).toBe('a');
  });

  it('refuses an over-long or malformed name by length first, then pattern, with the schema messages', () => {
    expect(projectNameProblem(`a${'/a'.repeat(100_000)}`)).toBe(PROJECT_MESSAGES.length);
    expect(projectNameProblem('a'.repeat(PROJECT_MAX))).toBeUndefined();
    expect(projectNameProblem('a'.repeat(PROJECT_MAX + 1))).toBe(PROJECT_MESSAGES.length);
    for (const bad of ['', '/a', 'a/', 'a//b', 'a b', 'ä'])
      expect(projectNameProblem(bad), bad).toBe(PROJECT_MESSAGES.pattern);
    expect(() => assertProjectName('a//b')).toThrow(ValidationError);
    expect(projectNameSchema.safeParse('a//b').error?.issues[0]?.message).toBe(PROJECT_MESSAGES.pattern);
    expect(projectNameSchema.safeParse('a'.repeat(PROJECT_MAX + 1)).error?.issues[0]?.message).toBe(
      PROJECT_MESSAGES.length,
    );
  });

  it('agrees with ancestorsOf on every name the pattern accepts', () => {
    fc.assert(
      fc.property(projectArb, (project) => {
        expect(projectNameProblem(project)).toBe(project.length > PROJECT_MAX ? PROJECT_MESSAGES.length : undefined);
      }),
    );
  });
});
