import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkInput } from '../../src/domain/common/validation.js';

/**
 * Every exported zod schema (REST bodies and queries, MCP tool inputs, dashboard API, bundle lines) must
 * validate hostile input at the maximum body size in well under 100 ms: a pattern or transform that runs
 * before (or despite) a failed length bound blocks the event loop for everyone (issue 12, "bounded before
 * parsed"). Schemas are discovered by importing the modules and collecting every export that is a zod
 * schema (also inside exported arrays/objects, e.g. MCP tool definitions' `input`), so a new schema is
 * covered without touching this file.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MiB = 1024 * 1024;
const BUDGET_MS = 100;

/** Modules whose exports are searched for schemas (relative to the repository root). */
const MODULE_RULES: Array<{ dir: string; match: RegExp; recursive: boolean }> = [
  { dir: 'src/domain', match: /-schemas\.ts$/, recursive: true },
  { dir: 'src/domain/accounts', match: /\.ts$/, recursive: false },
  { dir: 'src/domain/bundles', match: /\.ts$/, recursive: false },
  { dir: 'src/http/routes', match: /\.ts$/, recursive: true },
  { dir: 'src/mcp', match: /\.ts$/, recursive: true },
  { dir: 'src/domain', match: /^(pagination|slug|validation)\.ts$/, recursive: false },
];

function modulePaths(): string[] {
  const found = new Set<string>();
  for (const rule of MODULE_RULES) {
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (rule.recursive) walk(path);
        } else if (rule.match.test(entry.name) && !entry.name.endsWith('.test.ts')) {
          found.add(path);
        }
      }
    };
    walk(rule.dir);
  }
  return [...found].sort();
}

interface Collected {
  /** `module:export[.path]` */
  name: string;
  schema: z.ZodType;
  /** Request-side: bodies, queries, inputs, bundle lines, MCP tool inputs (see isInputName). */
  input: boolean;
}

/**
 * Naming convention the structural test relies on: request-side schemas are exported as `…Body`,
 * `…Query`, `…Input`, `…Params`, `…Line`/`bundleLine`, or are an MCP tool's `input`; response shapes are
 * `…Schema` and tool `output`s (they describe what the server sends, which needs no bound). Building
 * blocks (`slugSchema`, `projectNameSchema`, …) are checked through the bodies that use them.
 */
const isInputName = (path: string[]) => {
  const last = path[path.length - 1] ?? '';
  if (last === 'input') return true;
  if (last === 'output') return false;
  return /(Body|Query|Input|Params|Line|line)$/.test(last);
};

async function collectSchemas(): Promise<Collected[]> {
  const out: Collected[] = [];
  const seen = new Set<unknown>();
  for (const path of modulePaths()) {
    const mod = (await import(pathToFileURL(join(ROOT, path)).href)) as Record<string, unknown>;
    const visit = (value: unknown, names: string[], depth: number) => {
      if (value instanceof z.ZodType) {
        if (seen.has(value)) return;
        seen.add(value);
        out.push({ name: `${relative('src', path)}:${names.join('.')}`, schema: value, input: isInputName(names) });
        return;
      }
      if (depth >= 2 || value === null || typeof value !== 'object') return;
      if (Array.isArray(value)) {
        value.forEach((item, i) => {
          const label = (item as { name?: unknown })?.name;
          visit(item, [...names, typeof label === 'string' ? label : String(i)], depth + 1);
        });
        return;
      }
      for (const [key, child] of Object.entries(value)) visit(child, [...names, key], depth + 1);
    };
    for (const [name, value] of Object.entries(mod)) visit(value, [name], 0);
  }
  return out;
}

/** Every zod schema nested in `schema`'s definition (object shapes, array items, unions, pipes, wrappers). */
function nestedSchemas(schema: z.ZodType, into = new Set<z.ZodType>()): Set<z.ZodType> {
  if (into.has(schema)) return into;
  into.add(schema);
  const visit = (value: unknown, depth: number) => {
    if (value instanceof z.ZodType) nestedSchemas(value, into);
    else if (depth < 2 && value && typeof value === 'object') for (const v of Object.values(value)) visit(v, depth + 1);
  };
  for (const value of Object.values((schema as unknown as { _zod: { def: object } })._zod.def)) visit(value, 0);
  return into;
}

const schemas = await collectSchemas();
/**
 * What a client can reach: request-side schemas and every exported schema they are built from (e.g.
 * `emailSchema`, `projectNameSchema`). Response shapes are never parsed from client input (responses are
 * serialised with JSON.stringify), so they are not timed.
 */
const reachable = new Set<z.ZodType>();
for (const s of schemas) if (s.input) nestedSchemas(s.schema, reachable);
const clientFacing = schemas.filter((s) => reachable.has(s.schema));

// ---------------------------------------------------------------------------------------------------------
// Adversarial values. Each is built at a requested size (characters) so that a ladder of sizes can stop
// before a quadratic case hangs the run at 1 MiB.

type Maker = (size: number) => unknown;

const repeatTo = (unit: string, size: number) => unit.repeat(Math.max(1, Math.floor(size / unit.length)));

const STRINGS: Record<string, Maker> = {
  'a×N': (n) => 'a'.repeat(n),
  'a@ + dots + @': (n) => `a@${'.'.repeat(n - 3)}@`,
  'a@ + dots + a': (n) => `a@${'.'.repeat(n - 3)}a`,
  'a + /a×N': (n) => `a${repeatTo('/a', n - 1)}`,
  'a + /×N': (n) => `a${'/'.repeat(n - 1)}`,
  'spaces×N': (n) => ' '.repeat(n),
  'a + spaces + !': (n) => `a${' '.repeat(n - 2)}!`,
  'tabs/newlines': (n) => repeatTo('\t\n\r ', n),
  'a-×N + !': (n) => `${repeatTo('a-', n - 1)}!`,
  '-×N': (n) => '-'.repeat(n),
  '0×N + x': (n) => `${'0'.repeat(n - 1)}x`,
  '_×N + !': (n) => `${'_'.repeat(n - 1)}!`,
  'mime params': (n) => `a/a${repeatTo('; a=a', n - 4)};`,
  'mime spaces': (n) => `a/a;${' '.repeat(n - 5)};`,
  'mime quotes': (n) => `a/a; a="${'\\'.repeat(n - 10)}`,
  'dots×N': (n) => '.'.repeat(n),
  '@×N': (n) => '@'.repeat(n),
  'LIKE wildcards': (n) => repeatTo('%_\\', n),
  'emoji (surrogates)': (n) => repeatTo('😀', n),
  'lone surrogates': (n) => repeatTo('\ud800', n),
  'NUL×N': (n) => '\u0000'.repeat(n),
  'combining marks': (n) => `a${repeatTo('\u0301', n - 1)}`,
  'path traversal': (n) => repeatTo('../', n),
  '{{×N': (n) => repeatTo('{{', n),
  '@ref×N': (n) => repeatTo('@a ', n),
};

/** Non-string shapes at the body limit: many keys, long arrays. */
const SHAPES: Record<string, Maker> = {
  'object with N keys': (n) => Object.fromEntries(Array.from({ length: Math.floor(n / 10) }, (_, i) => [`k${i}`, 'x'])),
  'array of N/3.5 items': (n) => Array.from({ length: Math.floor(n / 3.5) }, () => 'a'),
  'array of N/3.5 numbers': (n) => Array.from({ length: Math.floor(n / 3.5) }, (_, i) => i),
};

/**
 * 1 MiB of characters, ~100k keys, ~300k items: what fits the 1 MiB body limit. Smaller sizes first, each
 * 4× the last (a quadratic case grows 16× per step), so that a slow case is caught before it hangs the run.
 */
const SIZES = [16 * 1024, 64 * 1024, 256 * 1024, MiB];

/** Values are built once per (kind, size) and shared by every schema and field. */
const made = new Map<string, unknown>();
const makeOnce = (label: string, make: Maker, size: number) => {
  const key = `${label}@${size}`;
  if (!made.has(key)) made.set(key, make(size));
  return made.get(key);
};

// ---------------------------------------------------------------------------------------------------------
// Inputs for a schema: the value itself, and for object schemas each string/array/record field set to the
// value in an object whose other fields are plausible.

type JsonNode = Record<string, unknown>;

function inputJsonSchema(schema: z.ZodType): JsonNode | undefined {
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonNode;
  } catch {
    return undefined;
  }
}

/** The first object-shaped branch (properties) of a JSON Schema node, through anyOf/allOf. */
function objectNode(node: JsonNode | undefined): JsonNode | undefined {
  if (!node) return undefined;
  if (node.properties && typeof node.properties === 'object') return node;
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const list = node[key];
    if (Array.isArray(list)) {
      for (const item of list) {
        const found = objectNode(item as JsonNode);
        if (found) return found;
      }
    }
  }
  return undefined;
}

const typesOf = (node: JsonNode): string[] => {
  const t = node.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t as string[];
  const branches = (node.anyOf ?? node.oneOf) as JsonNode[] | undefined;
  return branches ? branches.flatMap(typesOf) : [];
};

/** A plausible value for a property: valid often enough that validation reaches every field. */
function plausible(node: JsonNode, name: string): unknown {
  if ('const' in node) return node.const;
  if (Array.isArray(node.enum)) return node.enum[0];
  if (node.default !== undefined) return node.default;
  const types = typesOf(node);
  if (types.includes('string')) {
    if (/email/.test(name)) return 'someone@example.com';
    if (/_at$/.test(name)) return '2026-01-01T00:00:00.000Z';
    if (/project/.test(name)) return 'acme/backend';
    if (/content_type/.test(name)) return 'text/markdown';
    if (/password/.test(name)) return 'correct horse battery staple';
    if (name === 'memory_id') return 'mem_01JD0000000000000000000000';
    return 'valid-value';
  }
  if (types.includes('integer') || types.includes('number')) return 1;
  if (types.includes('boolean')) return true;
  if (types.includes('array')) return [];
  if (types.includes('object')) {
    const inner = objectNode(node);
    return inner ? baseObject(inner) : {};
  }
  if (types.includes('null')) return null;
  return 'valid-value';
}

function baseObject(node: JsonNode): Record<string, unknown> {
  const properties = (node.properties ?? {}) as Record<string, JsonNode>;
  const required = new Set((node.required as string[] | undefined) ?? []);
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(properties)) {
    if (required.has(key) || typesOf(child).length > 0) out[key] = plausible(child, key);
  }
  return out;
}

interface Target {
  /** Where the adversarial value goes: `(value)` for the whole input, else a dotted field path. */
  where: string;
  build(value: unknown): unknown;
  accepts: Array<'string' | 'array' | 'object'>;
}

function targetsOf(schema: z.ZodType): Target[] {
  const targets: Target[] = [{ where: '(value)', build: (v) => v, accepts: ['string', 'array', 'object'] }];
  const root = objectNode(inputJsonSchema(schema));
  if (!root) return targets;
  const base = baseObject(root);
  const addFields = (node: JsonNode, prefix: string[]) => {
    for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, JsonNode>)) {
      const path = [...prefix, key];
      const types = typesOf(child);
      const accepts: Target['accepts'] = [];
      if (types.includes('string')) accepts.push('string');
      if (types.includes('array')) accepts.push('array');
      if (types.includes('object')) accepts.push('object');
      // Wrong-type values are refused by a type check (cheap); what matters is each field's own kind.
      if (accepts.length > 0) {
        targets.push({
          where: path.join('.'),
          accepts,
          build: (value) => {
            const copy = structuredClone(base) as Record<string, unknown>;
            let into = copy;
            for (const part of path.slice(0, -1)) {
              if (typeof into[part] !== 'object' || into[part] === null) into[part] = {};
              into = into[part] as Record<string, unknown>;
            }
            into[path[path.length - 1] as string] = value;
            return copy;
          },
        });
      }
      const nested = objectNode(child);
      if (nested && prefix.length === 0) addFields(nested, path);
    }
  };
  addFields(root, []);
  return targets;
}

/** CPU time of this process in milliseconds: what the parse itself costs, whatever else the machine runs. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Best of up to 3 parses; a parse under budget settles it at once, and one over 5× the budget is no noise,
 * so it is not repeated. Measured in CPU time, not wall-clock time: on a shared machine other processes
 * stretch the wall clock (a 20 ms parse took 160 ms of wall time at a load average of 18), but not the CPU
 * time this process spends, while a quadratic case at 1 MiB costs seconds of CPU wherever it runs.
 * Parsed as every surface parses: through `checkInput`, the whole-input budget (entries, nesting) and then
 * the schema — a record costs about a microsecond per key, so its key count is bounded before the schema
 * runs.
 */
function timeParse(schema: z.ZodType, input: unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const start = cpuMs();
    checkInput(schema, input);
    best = Math.min(best, cpuMs() - start);
    if (best < BUDGET_MS || best > 5 * BUDGET_MS) break;
  }
  return best;
}

/**
 * Times one (target, value) case up a ladder of sizes; stops climbing as soon as a size is over budget,
 * so that a quadratic case is reported at 16 KiB or 128 KiB instead of hanging the run at 1 MiB.
 */
function measure(schema: z.ZodType, target: Target, label: string, make: Maker): { size: number; ms: number } {
  let last = { size: 0, ms: 0 };
  for (const size of SIZES) {
    const input = target.build(makeOnce(label, make, size));
    const ms = timeParse(schema, input);
    last = { size, ms };
    if (ms >= BUDGET_MS) break;
  }
  return last;
}

describe('schema timing: every exported schema validates hostile input at the body limit in < 100 ms of CPU', () => {
  it('finds the schemas of every surface', () => {
    const names = clientFacing.map((s) => s.name).join('\n');
    expect(schemas.length).toBeGreaterThan(20);
    for (const expected of [
      'createPromptBody',
      'createMemoryBody',
      'createArtifactBody',
      'emailSchema',
      'bundleLine',
      'svc_search_memories.input',
      'svc_save_artifact.input',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it.each(clientFacing.map((s) => [s.name, s] as const))('%s', { timeout: 120_000 }, (_name, { schema }) => {
    const slow: string[] = [];
    for (const target of targetsOf(schema)) {
      const makers: Array<[string, Maker]> = [
        ...(target.accepts.includes('string') ? Object.entries(STRINGS) : []),
        ...Object.entries(SHAPES).filter(
          ([label]) =>
            target.where === '(value)' ||
            (label.startsWith('object') ? target.accepts.includes('object') : target.accepts.includes('array')),
        ),
      ];
      for (const [label, make] of makers) {
        const { size, ms } = measure(schema, target, label, make);
        if (ms >= BUDGET_MS) slow.push(`${target.where} = ${label} (${size} chars): ${ms.toFixed(0)} ms`);
      }
    }
    expect(slow.join('\n'), 'cases at or over 100 ms of CPU (best of 3)').toBe('');
  });
});

// ---------------------------------------------------------------------------------------------------------
// Structural: every string of a request-side schema has maxLength and every array maxItems, so that no
// field's pattern or transform ever sees more than its bound (enums and consts are bounded by nature).

function unboundedPaths(node: unknown, path: string, out: string[]): void {
  if (Array.isArray(node)) {
    for (const item of node) unboundedPaths(item, path, out); // anyOf/allOf branches: same field
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const n = node as JsonNode;
  const types = typeof n.type === 'string' ? [n.type] : Array.isArray(n.type) ? (n.type as string[]) : [];
  const exempt = 'const' in n || Array.isArray(n.enum);
  if (!exempt && types.includes('string') && typeof n.maxLength !== 'number') out.push(`${path || '(root)'}: string`);
  if (!exempt && types.includes('array') && typeof n.maxItems !== 'number') out.push(`${path || '(root)'}: array`);
  for (const [key, child] of Object.entries(n)) {
    if (key === 'properties' && child && typeof child === 'object') {
      for (const [prop, sub] of Object.entries(child)) unboundedPaths(sub, path ? `${path}.${prop}` : prop, out);
    } else if (key === 'items') {
      unboundedPaths(child, `${path}[]`, out);
    } else if (key === 'additionalProperties' || key === 'propertyNames') {
      unboundedPaths(child, `${path}{${key === 'propertyNames' ? 'key' : '*'}}`, out);
    } else if (typeof child === 'object') {
      unboundedPaths(child, path, out);
    }
  }
}

describe('schema bounds: every string and array of a request-side schema is bounded', () => {
  const inputs = schemas.filter((s) => s.input);

  it('finds the request-side schemas', () => {
    expect(inputs.length).toBeGreaterThan(10);
  });

  it.each(inputs.map((s) => [s.name, s] as const))('%s', (_name, { schema }) => {
    const json = inputJsonSchema(schema);
    expect(json, 'input JSON Schema').toBeDefined();
    const out: string[] = [];
    unboundedPaths(json, '', out);
    expect([...new Set(out)].join('\n'), 'strings without maxLength / arrays without maxItems').toBe('');
  });
});
