import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalSchema, describeVariable, mustSupply, resolveVariables, schemaMismatch } from './variables.js';

describe('resolveVariables', () => {
  it('takes supplied values, then defaults, then empty for optional variables', () => {
    const result = resolveVariables(
      ['given', 'defaulted', 'optional', 'required'],
      { defaulted: { default: 'D' }, optional: { required: false } },
      { given: 'G', stray: 'S' },
    );
    expect(result).toEqual({
      values: { given: 'G', defaulted: 'D', optional: '' },
      used: ['given', 'defaulted', 'optional'],
      missing: ['required'],
      unknown: ['stray'],
      invalid: {},
    });
  });

  it('refuses values outside an enum, but not defaults (validated when the schema was saved)', () => {
    const schema = { tone: { enum: ['a', 'b'], default: 'a' } };
    expect(resolveVariables(['tone'], schema, { tone: 'c' }).invalid).toEqual({ tone: 'Must be one of: a, b' });
    expect(resolveVariables(['tone'], schema, {}).values).toEqual({ tone: 'a' });
  });

  it('does not treat inherited object keys as supplied or described', () => {
    const result = resolveVariables(['constructor', 'toString'], {}, {});
    expect(result.missing).toEqual(['constructor', 'toString']);
  });

  it('property: every declared variable is either used or missing, never both', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(
        fc.uniqueArray(name),
        fc.dictionary(
          name,
          fc.record(
            { required: fc.boolean(), default: fc.option(fc.string(), { nil: undefined }) },
            { requiredKeys: [] },
          ),
        ),
        fc.dictionary(name, fc.string()),
        (declared, schema, supplied) => {
          const r = resolveVariables(declared, schema, supplied);
          expect([...r.used, ...r.missing].sort()).toEqual([...declared].sort());
          expect(Object.keys(r.values).sort()).toEqual([...r.used].sort());
          for (const key of r.unknown) expect(declared).not.toContain(key);
          // A variable is missing exactly when it must be supplied and was not.
          for (const n of r.missing) expect(mustSupply(schema[n]) && !(n in supplied)).toBe(true);
        },
      ),
    );
  });
});

describe('describeVariable and mustSupply', () => {
  it('describes a variable for a person or a model', () => {
    expect(describeVariable({ description: 'The tone', enum: ['x', 'y'], default: 'x' })).toBe(
      'The tone. One of: x, y. Default: x.',
    );
    expect(describeVariable({ default: '' })).toBe('Default: (empty).');
    expect(describeVariable({ description: 'Ends here!', default: 'x' })).toBe('Ends here! Default: x.');
    expect(describeVariable({ description: 'Alone' })).toBe('Alone');
    expect(describeVariable({})).toBeUndefined();
    expect(describeVariable(undefined)).toBeUndefined();
  });

  it('requires a value only when required (the default) and without a default', () => {
    expect(mustSupply(undefined)).toBe(true);
    expect(mustSupply({})).toBe(true);
    expect(mustSupply({ required: false })).toBe(false);
    expect(mustSupply({ default: 'x' })).toBe(false);
    expect(mustSupply({ required: true, default: '' })).toBe(false);
  });

  it('finds schema entries for variables the content does not declare', () => {
    expect(schemaMismatch({ a: {}, b: {}, c: {} }, ['a'])).toBe('Describes variables the content does not use: b, c');
    expect(schemaMismatch({ a: {} }, ['a', 'z'])).toBeUndefined();
  });
});

describe('canonicalSchema', () => {
  it('orders variables as the content does and each spec as description, required, default, enum', () => {
    const stored = { zeta: { enum: ['x'], description: 'Z' }, alpha: {}, stray: { default: 'd', required: false } };
    const ordered = canonicalSchema(stored, ['zeta', 'alpha']);
    expect(JSON.stringify(ordered)).toBe(
      '{"zeta":{"description":"Z","enum":["x"]},"alpha":{},"stray":{"required":false,"default":"d"}}',
    );
    expect(ordered).toEqual(stored);
  });
});
