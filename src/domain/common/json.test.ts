import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, isPlainObject, type JsonObject, jsonDepth, mergePatch } from './json.js';

/** Keys that collide often (so patches hit existing keys) plus the ones that are special in JavaScript. */
const keyArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('a', 'b', 'c', 'd') },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '') },
  { weight: 1, arbitrary: fc.string() },
);

const scalarArb = fc.oneof(
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 5 }),
);

/** JSON objects whose keys collide; `values` decides whether nulls (deletions in a patch) appear. */
const objectArb = (withNull: boolean) =>
  fc.object({
    key: keyArb,
    maxDepth: 3,
    maxKeys: 5,
    values: withNull ? [scalarArb, fc.constant(null)] : [scalarArb],
  }) as fc.Arbitrary<JsonObject>;

const anyJsonArb: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue({ maxDepth: 4 }), objectArb(true));

/** A patch that is a JSON object, with or without `null` members. */
const objectPatchArb: fc.Arbitrary<JsonObject> = fc.oneof(
  objectArb(true),
  fc.dictionary(keyArb, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
);

/** Nested `{a: {a: … {leaf}}}` built without recursion. */
function nest(depth: number, leaf: unknown, key = 'a'): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { [key]: value };
  return value;
}

/** Nested `[[… [leaf] …]]` built without recursion. */
function nestArrays(depth: number): unknown {
  let value: unknown[] = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

describe('mergePatch: RFC 7396 Appendix A', () => {
  const cases: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];

  it.each(cases)('%j patched with %j gives %j', (target, patch, expected) => {
    expect(mergePatch(target, patch)).toStrictEqual(expected);
  });

  it('applies the example of RFC 7396 section 3', () => {
    const target = {
      title: 'Goodbye!',
      author: { givenName: 'John', familyName: 'Doe' },
      tags: ['example', 'sample'],
      content: 'This will be unchanged',
    };
    const patch = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
    expect(mergePatch(target, patch)).toStrictEqual({
      title: 'Hello!',
      author: { givenName: 'John' },
      tags: ['example'],
      content: 'This will be unchanged',
      phoneNumber: '+01-123-456-7890',
    });
  });
});

describe('mergePatch: special keys', () => {
  it('treats "__proto__" as an ordinary key (JSON.parse makes it an own key)', () => {
    const patch = JSON.parse('{"__proto__": {"priority": "high"}, "a": 1}');
    const result = mergePatch({}, patch) as JsonObject;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result).sort()).toEqual(['__proto__', 'a']);
    expect(result.priority).toBeUndefined();
    expect(JSON.stringify(result)).toBe('{"__proto__":{"priority":"high"},"a":1}');
  });

  it('replaces, merges into and removes an own "__proto__" key', () => {
    const target = JSON.parse('{"__proto__": {"x": 1, "y": 2}, "keep": true}');
    expect(JSON.stringify(mergePatch(target, JSON.parse('{"__proto__": 5}')))).toBe('{"__proto__":5,"keep":true}');
    expect(JSON.stringify(mergePatch(target, JSON.parse('{"__proto__": {"y": null, "z": 3}}')))).toBe(
      '{"__proto__":{"x":1,"z":3},"keep":true}',
    );
    expect(JSON.stringify(mergePatch(target, JSON.parse('{"__proto__": null}')))).toBe('{"keep":true}');
  });

  it('does not pick up inherited members as existing values', () => {
    expect(mergePatch({}, { toString: { a: 1 }, constructor: 2 })).toStrictEqual({
      toString: { a: 1 },
      constructor: 2,
    });
  });
});

// The property tests compare with toEqual: toStrictEqual reads a `constructor` member as the class and
// treats fast-check's null-prototype objects as a different type.
describe('mergePatch: properties', () => {
  it('never modifies its inputs', () => {
    fc.assert(
      fc.property(anyJsonArb, fc.oneof(anyJsonArb, objectPatchArb), (target, patch) => {
        const targetBefore = structuredClone(target);
        const patchBefore = structuredClone(patch);
        mergePatch(target, patch);
        expect(target).toEqual(targetBefore);
        expect(patch).toEqual(patchBefore);
      }),
    );
  });

  it('is idempotent: applying the same patch twice equals applying it once', () => {
    fc.assert(
      fc.property(anyJsonArb, fc.oneof(anyJsonArb, objectPatchArb), (target, patch) => {
        const once = mergePatch(target, patch);
        expect(mergePatch(once, patch)).toEqual(once);
      }),
    );
  });

  it('without nulls in the patch, the result has every patch key, with the value unless it is an object', () => {
    fc.assert(
      fc.property(anyJsonArb, objectArb(false), (target, patch) => {
        const work: Array<[unknown, JsonObject]> = [[mergePatch(target, patch), patch]];
        while (work.length > 0) {
          const [result, from] = work.pop() as [unknown, JsonObject];
          expect(isPlainObject(result)).toBe(true);
          for (const [key, value] of Object.entries(from)) {
            expect(Object.hasOwn(result as JsonObject, key), key).toBe(true);
            const got = (result as JsonObject)[key];
            if (isPlainObject(value)) work.push([got, value]);
            else expect(got, key).toEqual(value);
          }
        }
      }),
    );
  });

  it('never keeps a key whose patch value is null', () => {
    fc.assert(
      fc.property(anyJsonArb, objectPatchArb, (target, patch) => {
        const work: Array<[unknown, JsonObject]> = [[mergePatch(target, patch), patch]];
        while (work.length > 0) {
          const [result, from] = work.pop() as [unknown, JsonObject];
          for (const [key, value] of Object.entries(from)) {
            if (value === null) expect(Object.hasOwn(result as JsonObject, key), key).toBe(false);
            else if (isPlainObject(value)) work.push([(result as JsonObject)[key], value]);
          }
        }
      }),
    );
  });

  it('keeps target keys the patch does not mention', () => {
    fc.assert(
      fc.property(objectArb(true), objectPatchArb, (target, patch) => {
        const result = mergePatch(target, patch) as JsonObject;
        for (const key of Object.keys(target)) {
          if (!Object.hasOwn(patch, key)) expect(result[key], key).toEqual(target[key]);
        }
      }),
    );
  });

  it('returns any non-object patch as is', () => {
    fc.assert(
      fc.property(
        anyJsonArb,
        fc.jsonValue().filter((p) => !isPlainObject(p)),
        (target, patch) => {
          expect(mergePatch(target, patch)).toBe(patch);
        },
      ),
    );
  });
});

describe('mergePatch: deep input', () => {
  const DEPTH = 100_000;

  it('applies a patch nested 100,000 levels deep without recursion', () => {
    const patch = nest(DEPTH, { leaf: 1, gone: null });
    let result: unknown;
    expect(() => {
      result = mergePatch({ other: true }, patch);
    }).not.toThrow();
    // Walk the result iteratively: a recursive comparison would itself overflow the stack.
    let node = result as JsonObject;
    expect(Object.keys(node)).toEqual(['other', 'a']);
    node = node.a as JsonObject;
    let levels = 1;
    while (levels < DEPTH && isPlainObject(node) && Object.keys(node).join() === 'a') {
      node = node.a as JsonObject;
      levels++;
    }
    expect(levels).toBe(DEPTH);
    expect(Object.keys(node)).toEqual(['leaf']);
    expect(node.leaf).toBe(1);
  });

  it('merges a deep patch into an equally deep target', () => {
    const target = nest(DEPTH, { keep: 'x', drop: 'y' });
    const patch = nest(DEPTH, { drop: null, add: 2 });
    const result = mergePatch(target, patch);
    let node = result as JsonObject;
    for (let i = 0; i < DEPTH; i++) node = node.a as JsonObject;
    expect(Object.keys(node).sort()).toEqual(['add', 'keep']);
    expect(node.keep).toBe('x');
    expect(node.add).toBe(2);
  });
});

describe('jsonDepth', () => {
  it('is 0 for scalars and null', () => {
    for (const scalar of [null, 0, 1.5, '', 'x', true, false]) expect(jsonDepth(scalar, 10), String(scalar)).toBe(0);
  });

  it('is 1 for an empty or flat object or array', () => {
    expect(jsonDepth({}, 10)).toBe(1);
    expect(jsonDepth([], 10)).toBe(1);
    expect(jsonDepth({ a: 1, b: 'x', c: null }, 10)).toBe(1);
    expect(jsonDepth([1, 'x', null], 10)).toBe(1);
  });

  it('counts nesting through objects and arrays and takes the deepest branch', () => {
    expect(jsonDepth({ a: {} }, 10)).toBe(2);
    expect(jsonDepth([[]], 10)).toBe(2);
    expect(jsonDepth({ a: [{ b: [] }] }, 10)).toBe(4);
    expect(jsonDepth({ shallow: 1, deep: { x: { y: [1] } }, mid: [{}] }, 10)).toBe(4);
    expect(jsonDepth([{}, [[[]]], 1], 10)).toBe(4);
  });

  it('matches a recursive reference implementation below the limit', () => {
    const reference = (value: unknown): number =>
      typeof value !== 'object' || value === null
        ? 0
        : 1 + Math.max(0, ...Object.values(value).map((child) => reference(child)));
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(jsonDepth(value, 100)).toBe(reference(value));
      }),
    );
  });

  it('returns more than the limit once the limit is exceeded, and exactly the depth at the limit', () => {
    expect(jsonDepth(nest(5, 1), 5)).toBe(5);
    expect(jsonDepth(nest(6, 1), 5)).toBeGreaterThan(5);
    expect(jsonDepth(nestArrays(100), 0)).toBeGreaterThan(0);
  });

  it('stops before looking below the first level past the limit', () => {
    const trap = {};
    Object.defineProperty(trap, 'boom', {
      enumerable: true,
      get() {
        throw new Error('looked past the limit');
      },
    });
    // trap sits at depth 4 (a → a → a → trap); its members would be depth 5.
    const value = nest(3, trap);
    expect(jsonDepth(value, 3)).toBeGreaterThan(3);
    expect(() => jsonDepth(value, 4)).toThrow('looked past the limit');
  });

  it('handles arrays nested 1,000,000 levels deep without throwing', () => {
    const deep = nestArrays(1_000_000);
    expect(jsonDepth(deep, Number.POSITIVE_INFINITY)).toBe(1_000_000);
    expect(jsonDepth(deep, 64)).toBeGreaterThan(64);
  });
});

describe('canonicalJson', () => {
  it('gives equal text for equal values whatever their key order, and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe(canonicalJson({ a: { c: null, d: [2, 1] }, b: 1 }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
  });
});
