/**
 * Typed variables: what a prompt's `variable_schema` says about each `{{variable}}`, and how a render
 * resolves the values. Dependency-free, like template.ts, so the dashboard's render form uses it too.
 */
import type { VariableSchema, VariableSpec } from '../../contract/index.js';

export type { VariableSchema, VariableSpec };

/** Whether a caller must supply the variable: required (the default) and without a default. */
export const mustSupply = (spec: VariableSpec | undefined): boolean =>
  spec?.required !== false && spec?.default === undefined;

/** One line for a person or a model: the description, the allowed values and the default. */
export function describeVariable(spec: VariableSpec | undefined): string | undefined {
  if (!spec) return undefined;
  const facts = [
    spec.enum && `One of: ${spec.enum.join(', ')}.`,
    spec.default !== undefined && `Default: ${spec.default === '' ? '(empty)' : spec.default}.`,
  ].filter((part): part is string => typeof part === 'string');
  const description = spec.description?.trim();
  if (!description) return facts.length > 0 ? facts.join(' ') : undefined;
  if (facts.length === 0) return description;
  return [/[.!?]$/.test(description) ? description : `${description}.`, ...facts].join(' ');
}

/** One argument of a prompt as MCP clients (and the context block) show it. */
export interface PromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

/**
 * A prompt's variables as MCP arguments: descriptions and `required` come from its variable schema
 * (required unless optional or defaulted). Shared by `prompts/list`, `svc_list_prompts` and the context block.
 */
export function promptArguments(prompt: { variables: string[]; variable_schema: VariableSchema }): PromptArgument[] {
  return prompt.variables.map((name) => {
    const spec = Object.hasOwn(prompt.variable_schema, name) ? prompt.variable_schema[name] : undefined;
    const description = describeVariable(spec);
    return { name, ...(description !== undefined && { description }), required: mustSupply(spec) };
  });
}

export interface VariableResolution {
  /** Values to substitute: supplied ones, then defaults, then '' for optional variables. */
  values: Record<string, string>;
  /** Declared variables that get a value, in order of appearance. */
  used: string[];
  /** Declared variables that must be supplied and were not. */
  missing: string[];
  /** Supplied names that the content does not declare. */
  unknown: string[];
  /** Supplied values outside their variable's `enum`, with the reason. */
  invalid: Record<string, string>;
}

/**
 * Resolves the values of `declared` (the variables of the content being rendered) from what the caller
 * supplied and the schema. Pure: the caller decides what missing or unknown variables mean (strict mode).
 */
export function resolveVariables(
  declared: readonly string[],
  schema: Readonly<VariableSchema>,
  supplied: Readonly<Record<string, string>>,
): VariableResolution {
  const values: Record<string, string> = {};
  const used: string[] = [];
  const missing: string[] = [];
  const invalid: Record<string, string> = {};
  for (const name of declared) {
    const spec = Object.hasOwn(schema, name) ? schema[name] : undefined;
    if (Object.hasOwn(supplied, name)) {
      const value = supplied[name] as string;
      if (spec?.enum && !spec.enum.includes(value)) invalid[name] = `Must be one of: ${spec.enum.join(', ')}`;
      values[name] = value;
    } else if (spec?.default !== undefined) {
      values[name] = spec.default;
    } else if (spec?.required === false) {
      values[name] = '';
    } else {
      missing.push(name);
      continue;
    }
    used.push(name);
  }
  // A set: many supplied names against many declared ones must not cost their product.
  const declaredSet = new Set(declared);
  const unknown = Object.keys(supplied).filter((name) => !declaredSet.has(name));
  return { values, used, missing, unknown, invalid };
}

/**
 * Why `schema` does not fit content whose variables are `variables` — a schema may only describe the
 * content's own variables — or undefined when it fits.
 */
export function schemaMismatch(schema: Readonly<VariableSchema>, variables: readonly string[]): string | undefined {
  const undeclared = Object.keys(schema).filter((name) => !variables.includes(name));
  return undeclared.length > 0 ? `Describes variables the content does not use: ${undeclared.join(', ')}` : undefined;
}

const SPEC_KEYS = ['description', 'required', 'default', 'enum'] as const;

/**
 * The schema in one canonical order: variables in their order of appearance in the content (others after,
 * sorted), each spec's keys as description, required, default, enum. PostgreSQL's jsonb does not keep key
 * order, so without this the same prompt would read back differently on the two databases (and a pulled
 * prompt file would change for no reason).
 */
export function canonicalSchema(schema: Readonly<VariableSchema>, variables: readonly string[]): VariableSchema {
  const names = [
    ...variables.filter((name) => Object.hasOwn(schema, name)),
    ...Object.keys(schema)
      .filter((name) => !variables.includes(name))
      .sort(),
  ];
  const out: VariableSchema = {};
  for (const name of names) {
    const spec = schema[name] as VariableSpec;
    const ordered: Record<string, unknown> = {};
    for (const key of SPEC_KEYS) if (spec[key] !== undefined) ordered[key] = spec[key];
    out[name] = ordered as VariableSpec;
  }
  return out;
}
