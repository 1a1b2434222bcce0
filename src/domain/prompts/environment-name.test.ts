import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SLUG_MAX, SLUG_PATTERN } from '../../contract/index.js';
import { checkInput } from '../common/validation.js';
import { environmentNameSchema, setEnvironmentBody } from './prompt-schemas.js';

const accepts = (name: unknown) => checkInput(environmentNameSchema, name).success;

describe('environment names (the slug rules)', () => {
  it('accepts exactly the strings of at most 100 characters that match the slug pattern', () => {
    const slugish = fc.stringMatching(/^[a-z0-9-]{0,120}$/);
    fc.assert(
      fc.property(fc.oneof(slugish, fc.string({ maxLength: 120 })), (name) => {
        expect(accepts(name)).toBe(name.length <= SLUG_MAX && SLUG_PATTERN.test(name));
      }),
    );
  });

  it('refuses a long hostile value by its length, without running the pattern on it', () => {
    const result = checkInput(environmentNameSchema, `${'a-'.repeat(50_000)}!`);
    expect(result.success).toBe(false);
    if (!result.success)
      expect(Object.values(result.details)).toEqual(['Environment names are at most 100 characters']);
  });

  it('takes a positive integer version and an optional marketplace flag, nothing else', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5, max: 1000 }),
        fc.option(fc.boolean(), { nil: undefined }),
        (version, marketplace) => {
          const result = checkInput(setEnvironmentBody, { version, ...(marketplace !== undefined && { marketplace }) });
          expect(result.success).toBe(version >= 1);
        },
      ),
    );
    expect(checkInput(setEnvironmentBody, { version: 1, name: 'x' }).success).toBe(false);
    expect(checkInput(setEnvironmentBody, { version: 1.5 }).success).toBe(false);
  });
});
