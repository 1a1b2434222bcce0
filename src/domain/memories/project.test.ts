import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ancestorsOf, isDescendantOf, PROJECT_PATTERN } from './project.js';

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
