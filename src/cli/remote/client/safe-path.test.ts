import { dirname, join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidSlug } from '../../../domain/common/slug.js';
import { CliError } from '../../output.js';
import { promptFilePath } from './safe-path.js';

describe('promptFilePath', () => {
  const dirs = fc.constantFrom('prompts', './prompts', '/tmp/x/prompts', 'a/../b', '.');

  it('for any slug: refused, or a direct child <slug>.md of the directory', () => {
    const slugs = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom('..', '../x', '../../etc/passwd', '/etc/passwd', 'a/b', 'a\\b', 'x\u0000y', 'C:\\x', '.', ''),
      fc.stringMatching(/^[a-z0-9]+(?:-[a-z0-9]+)*$/),
    );
    fc.assert(
      fc.property(dirs, slugs, (dir, slug) => {
        let file: string;
        try {
          file = promptFilePath(dir, slug);
        } catch (error) {
          expect(error).toBeInstanceOf(CliError);
          expect(isValidSlug(slug)).toBe(false);
          return;
        }
        expect(isValidSlug(slug)).toBe(true);
        expect(file).toBe(join(dir, `${slug}.md`));
        expect(dirname(resolve(file))).toBe(resolve(dir));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses hostile slugs and non-strings with a message that is safe to print', () => {
    for (const slug of ['../../x', '/abs', 'a/b', 'a\\b', '..', 'nul\u0000', 'x'.repeat(101), 'UPPER', 42, null]) {
      expect(() => promptFilePath('dir', slug)).toThrow(/invalid prompt slug/);
    }
    expect(() => promptFilePath('dir', '\u001b]0;x\u0007../a')).toThrow(/"0;x\.\.\/a"|"\.\.\/a"/);
  });
});
