// What changed between two versions of a prompt: a line diff of the content, and the other versioned fields.
import { diffLines } from 'diff';
import type { PromptVersion, VariableSpec } from '../../src/contract';
import { describeVariable } from './variables';

export type DiffRow =
  | { kind: 'added' | 'removed' | 'same'; text: string; key: number }
  | { kind: 'skip'; count: number; key: number };

/** Unchanged lines kept around each change when the rest is folded. */
const CONTEXT = 3;

/** Line diff of `before` → `after`; with `fold`, long unchanged runs collapse to a `skip` row. */
export function contentDiff(before: string, after: string, fold: boolean): DiffRow[] {
  // A missing final newline is not a change worth a removed-and-added last line.
  const end = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
  const lines: DiffRow[] = [];
  for (const change of diffLines(end(before), end(after))) {
    const kind = change.added ? 'added' : change.removed ? 'removed' : 'same';
    const texts = change.value.split('\n');
    if (texts.at(-1) === '') texts.pop();
    for (const text of texts) lines.push({ kind, text, key: lines.length });
  }
  return fold ? foldUnchanged(lines) : lines;
}

function foldUnchanged(lines: DiffRow[]): DiffRow[] {
  const out: DiffRow[] = [];
  let start = 0;
  while (start < lines.length) {
    if (lines[start]?.kind !== 'same') {
      out.push(lines[start] as DiffRow);
      start++;
      continue;
    }
    let end = start;
    while (end < lines.length && lines[end]?.kind === 'same') end++;
    const keepHead = start === 0 ? 0 : CONTEXT;
    const keepTail = end === lines.length ? 0 : CONTEXT;
    const run = lines.slice(start, end);
    if (run.length > keepHead + keepTail + 1) {
      out.push(...run.slice(0, keepHead));
      out.push({ kind: 'skip', count: run.length - keepHead - keepTail, key: start + keepHead });
      out.push(...run.slice(run.length - keepTail));
    } else {
      out.push(...run);
    }
    start = end;
  }
  return out;
}

export const diffStats = (rows: readonly DiffRow[]) => ({
  added: rows.filter((row) => row.kind === 'added').length,
  removed: rows.filter((row) => row.kind === 'removed').length,
});

/** One variable's schema in words ("Required. One of: a, b. Default: a."). */
export function summarizeSpec(spec: VariableSpec | undefined): string {
  const required = spec?.required === false ? 'Optional.' : 'Required.';
  const details = describeVariable(spec);
  return details ? `${required} ${details}` : required;
}

const canonical = (spec: VariableSpec | undefined) =>
  JSON.stringify([spec?.description, spec?.required !== false, spec?.default, spec?.enum]);

export interface SchemaChange {
  name: string;
  before: string | undefined;
  after: string | undefined;
}

// A variable may be called `constructor`: never read a schema through its prototype.
const own = (schema: Record<string, VariableSpec>, name: string) =>
  Object.hasOwn(schema, name) ? schema[name] : undefined;

/** Variables described differently in `after` than in `before` (added, removed or changed). */
export function schemaChanges(before: PromptVersion, after: PromptVersion): SchemaChange[] {
  const names = [...new Set([...Object.keys(before.variable_schema), ...Object.keys(after.variable_schema)])];
  return names
    .map((name) => ({ name, old: own(before.variable_schema, name), now: own(after.variable_schema, name) }))
    .filter(({ old, now }) => canonical(old) !== canonical(now))
    .map(({ name, old, now }) => ({
      name,
      before: old && summarizeSpec(old),
      after: now && summarizeSpec(now),
    }));
}
