// The variable schema as the editor holds it (text fields), and back to what the API takes.
import type { VariableSchema, VariableSpec } from './variables';

export interface VariableDraft {
  description: string;
  required: boolean;
  /** undefined: no default (an emptied field means "no default"; a stored empty default survives untouched). */
  default: string | undefined;
  /** Allowed values, one per line. */
  allowed: string;
}

export type SchemaDraft = Record<string, VariableDraft>;

export const emptyDraft: VariableDraft = { description: '', required: true, default: undefined, allowed: '' };

/** The draft of `name` (a variable may be called `constructor`: never read through the prototype). */
export const draftOf = (drafts: SchemaDraft, name: string): VariableDraft =>
  (Object.hasOwn(drafts, name) ? drafts[name] : undefined) ?? emptyDraft;

// Built with Object.fromEntries: a variable may be called `__proto__`, which an assignment would not store.
export function toDrafts(schema: VariableSchema | undefined): SchemaDraft {
  return Object.fromEntries(
    Object.entries(schema ?? {}).map(([name, spec]) => [
      name,
      {
        description: spec.description ?? '',
        required: spec.required !== false,
        default: spec.default,
        allowed: (spec.enum ?? []).join('\n'),
      },
    ]),
  );
}

/** The allowed values of a draft: one per line, trimmed, empty lines and repeats dropped. */
export const allowedValues = (draft: VariableDraft): string[] => [
  ...new Set(
    draft.allowed
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean),
  ),
];

function toSpec(draft: VariableDraft): VariableSpec | undefined {
  const spec: VariableSpec = {};
  const description = draft.description.trim();
  if (description) spec.description = description;
  if (!draft.required) spec.required = false;
  if (draft.default !== undefined) spec.default = draft.default;
  const values = allowedValues(draft);
  if (values.length > 0) spec.enum = values;
  return Object.keys(spec).length > 0 ? spec : undefined;
}

/** The schema to save: only the content's own variables (the server refuses others), only described ones. */
export function toSchema(drafts: SchemaDraft, variables: readonly string[]): VariableSchema {
  return Object.fromEntries(
    variables.flatMap((name) => {
      const spec = toSpec(draftOf(drafts, name));
      return spec ? [[name, spec] as const] : [];
    }),
  );
}

/** Server validation messages for one variable (`variable_schema.<name>[.<field>…]`), by field. */
export function schemaErrors(
  details: Record<string, string> | undefined,
  name: string,
): Partial<Record<keyof VariableSpec | 'variable', string>> {
  const errors: Partial<Record<keyof VariableSpec | 'variable', string>> = {};
  const prefix = `variable_schema.${name}`;
  for (const [key, message] of Object.entries(details ?? {})) {
    if (key !== prefix && !key.startsWith(`${prefix}.`)) continue;
    const field = key.slice(prefix.length + 1).split('.')[0];
    const slot = field === 'description' || field === 'required' || field === 'default' || field === 'enum';
    const target = slot ? (field as keyof VariableSpec) : 'variable';
    errors[target] ??= message;
  }
  return errors;
}
