import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The labelled evaluation set for memory search (issue 16): memories.txt (a fictional company's memories)
 * and queries.txt (graded queries in groups). Both are plain text so they can be read and reviewed as data.
 */
export interface EvalMemory {
  id: string;
  project: string | null;
  category?: string;
  priority?: 'high' | 'medium' | 'low';
  tags: string[];
  ageDays: number;
  text: string;
}

export const GROUPS = [
  'keyword',
  'question',
  'paraphrase',
  'wordforms',
  'typo',
  'distractor',
  'project',
  'priority',
  'global',
  'empty',
] as const;
export type Group = (typeof GROUPS)[number];
export type Split = 'tuned' | 'held-out';

export interface EvalQuery {
  group: Group;
  /** Tuning looks only at `tuned` queries; every third query of each group is `held-out`. */
  split: Split;
  project?: string;
  search: string;
  /** Local memory id → grade (1–3). */
  grades: Map<string, number>;
  /** Line in queries.txt, to name the query in reports. */
  line: number;
}

const HERE = dirname(fileURLToPath(import.meta.url));

const fields = (line: string) => line.split('|').map((field) => field.trim());
const dash = (value: string | undefined) => (value === undefined || value === '-' || value === '' ? undefined : value);

export function parseMemories(source: string): EvalMemory[] {
  const memories: EvalMemory[] = [];
  let project: string | null | undefined;
  for (const [index, raw] of source.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('@')) {
      const name = line.slice(1).trim();
      project = name === 'global' ? null : name;
      continue;
    }
    const [id, category, priority, tags, age, ...text] = fields(line);
    if (project === undefined || !id || age === undefined || text.length === 0) {
      throw new Error(`memories.txt:${index + 1}: expected "id | category | priority | tags | age | text"`);
    }
    const prio = dash(priority);
    if (prio !== undefined && prio !== 'high' && prio !== 'medium' && prio !== 'low') {
      throw new Error(`memories.txt:${index + 1}: priority must be high, medium, low or -`);
    }
    const cat = dash(category);
    memories.push({
      id,
      project,
      ...(cat !== undefined && { category: cat }),
      ...(prio !== undefined && { priority: prio }),
      tags: (dash(tags) ?? '').split(',').filter(Boolean),
      ageDays: Number(age),
      text: text.join('|'),
    });
  }
  const ids = new Set<string>();
  for (const memory of memories) {
    if (ids.has(memory.id)) throw new Error(`memories.txt: duplicate id ${memory.id}`);
    ids.add(memory.id);
  }
  return memories;
}

export function parseQueries(source: string, memoryIds: ReadonlySet<string>): EvalQuery[] {
  const queries: EvalQuery[] = [];
  const seen = new Map<Group, number>();
  for (const [index, raw] of source.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [group, project, search, judgments] = fields(line);
    if (!GROUPS.includes(group as Group) || search === undefined || judgments === undefined) {
      throw new Error(`queries.txt:${index + 1}: expected "group | project | search | id=grade …"`);
    }
    const grades = new Map<string, number>();
    for (const judgment of judgments.split(/\s+/).filter(Boolean)) {
      const [id, grade] = judgment.split('=');
      if (!id || !memoryIds.has(id) || !['1', '2', '3'].includes(grade ?? '')) {
        throw new Error(`queries.txt:${index + 1}: bad judgment "${judgment}"`);
      }
      grades.set(id, Number(grade));
    }
    const position = seen.get(group as Group) ?? 0;
    seen.set(group as Group, position + 1);
    const context = dash(project);
    queries.push({
      group: group as Group,
      split: position % 3 === 2 ? 'held-out' : 'tuned',
      ...(context !== undefined && { project: context }),
      search,
      grades,
      line: index + 1,
    });
  }
  return queries;
}

export function loadEvalSet(dir = HERE): { memories: EvalMemory[]; queries: EvalQuery[] } {
  const memories = parseMemories(readFileSync(join(dir, 'memories.txt'), 'utf8'));
  const queries = parseQueries(readFileSync(join(dir, 'queries.txt'), 'utf8'), new Set(memories.map((m) => m.id)));
  return { memories, queries };
}
