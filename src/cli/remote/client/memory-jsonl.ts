import { CliError, EXIT } from '../../output.js';

/**
 * The knowledge graph of the MCP reference memory server (`memory.jsonl`): one JSON object per line,
 * `{"type":"entity","name","entityType","observations":[…]}` or `{"type":"relation","from","to","relationType"}`.
 */
export interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}
export interface Relation {
  from: string;
  to: string;
  relationType: string;
}

/** What one entity becomes: the body of POST /memories (and of PUT for an update). */
export interface MemoryDraft {
  text: string;
  project_name?: string;
  metadata: {
    title: string;
    category?: string;
    tags?: string[];
    /** Marker that makes a re-run find this memory again instead of duplicating it. */
    source: typeof SOURCE;
    entity: string;
  };
}

export const SOURCE = 'memory-jsonl';

const isString = (value: unknown): value is string => typeof value === 'string';

/** Parses the file; a bad line is an error naming it (nothing is sent before the whole file is read). */
export function parseMemoryJsonl(text: string, where = 'memory.jsonl'): { entities: Entity[]; relations: Relation[] } {
  const entities = new Map<string, Entity>();
  const relations: Relation[] = [];
  const seenRelations = new Set<string>();
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const bad = (problem: string) => new CliError(`${where} line ${index + 1}: ${problem}`, EXIT.usage);
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line);
    } catch {
      throw bad('not valid JSON');
    }
    if (!record || typeof record !== 'object') throw bad('not a JSON object');
    if (record.type === 'entity') {
      const { name, entityType, observations = [] } = record;
      if (!isString(name) || name.trim() === '') throw bad('an entity needs a "name"');
      if (!isString(entityType)) throw bad('an entity needs an "entityType"');
      if (!Array.isArray(observations) || !observations.every(isString)) throw bad('"observations" must be strings');
      const existing = entities.get(name);
      // The reference server never writes an entity twice, but hand-edited files may: merge them.
      if (existing) existing.observations.push(...observations.filter((o) => !existing.observations.includes(o)));
      else entities.set(name, { name, entityType, observations: [...observations] });
    } else if (record.type === 'relation') {
      const { from, to, relationType } = record;
      if (!isString(from) || !isString(to) || !isString(relationType)) {
        throw bad('a relation needs "from", "to" and "relationType"');
      }
      const key = JSON.stringify([from, to, relationType]);
      if (!seenRelations.has(key)) {
        seenRelations.add(key);
        relations.push({ from, to, relationType });
      }
    } else throw bad(`unknown "type" ${JSON.stringify(record.type)} (expected "entity" or "relation")`);
  }
  return { entities: [...entities.values()], relations };
}

const validTag = (tag: string) => tag.trim().length >= 1 && tag.trim().length <= 50;

/**
 * One memory per entity. Text: the observations as a bullet list, then the relations it takes part in (both
 * directions) as sentences "A relationType B". Title = name; tags = [entityType]; category = entityType.
 */
export function entityToMemory(entity: Entity, relations: Relation[], project?: string): MemoryDraft {
  const observations = entity.observations.map((o) => `- ${o}`);
  const related = relations
    .filter((r) => r.from === entity.name || r.to === entity.name)
    .map((r) => `- ${r.from} ${r.relationType} ${r.to}`);
  const sections: string[] = [];
  if (observations.length > 0) sections.push(observations.join('\n'));
  if (related.length > 0) sections.push(`Relations:\n${related.join('\n')}`);
  const text = sections.length > 0 ? sections.join('\n\n') : `${entity.name} (${entity.entityType || 'entity'})`;
  const type = entity.entityType.trim();
  return {
    text,
    ...(project ? { project_name: project } : {}),
    metadata: {
      title: entity.name,
      ...(type && type.length <= 100 ? { category: type } : {}),
      ...(validTag(type) ? { tags: [type] } : {}),
      source: SOURCE,
      entity: entity.name,
    },
  };
}

/** The memories a graph becomes, in file order. */
export function graphToMemories(text: string, project?: string, where?: string): MemoryDraft[] {
  const { entities, relations } = parseMemoryJsonl(text, where);
  return entities.map((entity) => entityToMemory(entity, relations, project));
}
