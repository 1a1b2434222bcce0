import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryUpdate } from '../commands/importers.js';
import { entityToMemory, graphToMemories, parseMemoryJsonl } from './memory-jsonl.js';

const line = (value: unknown) => `${JSON.stringify(value)}\n`;

describe('memory.jsonl conversion', () => {
  it('one memory per entity: observations as bullets, relations in both directions, type as category and tag', () => {
    const text =
      line({ type: 'entity', name: 'Ada', entityType: 'person', observations: ['Writes code', 'Likes tea'] }) +
      line({ type: 'entity', name: 'Acme', entityType: 'organization', observations: [] }) +
      line({ type: 'relation', from: 'Ada', to: 'Acme', relationType: 'works_at' }) +
      line({ type: 'relation', from: 'Bob', to: 'Ada', relationType: 'mentors' }) +
      line({ type: 'relation', from: 'Ada', to: 'Acme', relationType: 'works_at' });
    expect(graphToMemories(text, 'team')).toEqual([
      {
        text: '- Writes code\n- Likes tea\n\nRelations:\n- Ada works_at Acme\n- Bob mentors Ada',
        project_name: 'team',
        metadata: { title: 'Ada', category: 'person', tags: ['person'], source: 'memory-jsonl', entity: 'Ada' },
      },
      {
        text: 'Relations:\n- Ada works_at Acme',
        project_name: 'team',
        metadata: {
          title: 'Acme',
          category: 'organization',
          tags: ['organization'],
          source: 'memory-jsonl',
          entity: 'Acme',
        },
      },
    ]);
  });

  it('an entity with nothing to say still has text; a global import has no project; odd types are not tags', () => {
    const [memory] = graphToMemories(line({ type: 'entity', name: 'Lonely', entityType: '', observations: [] }));
    expect(memory).toEqual({
      text: 'Lonely (entity)',
      metadata: { title: 'Lonely', source: 'memory-jsonl', entity: 'Lonely' },
    });
    const long = entityToMemory({ name: 'X', entityType: 'y'.repeat(60), observations: ['o'] }, []);
    expect(long.metadata.tags).toBeUndefined();
    expect(long.metadata.category).toBe('y'.repeat(60));
  });

  it('merges repeated entities and skips blank lines; names the bad line', () => {
    const text = `${line({ type: 'entity', name: 'A', entityType: 't', observations: ['1'] })}\n\n${line({ type: 'entity', name: 'A', entityType: 't', observations: ['1', '2'] })}`;
    expect(parseMemoryJsonl(text).entities).toEqual([{ name: 'A', entityType: 't', observations: ['1', '2'] }]);
    expect(() => parseMemoryJsonl('{"type":"entity"}\n', 'g.jsonl')).toThrow(
      'g.jsonl line 1: an entity needs a "name"',
    );
    expect(() => parseMemoryJsonl('\n{"type":"thing"}', 'g.jsonl')).toThrow(/line 2: unknown "type" "thing"/);
    expect(() => parseMemoryJsonl('[1]')).toThrow(/unknown "type"/);
    expect(() => parseMemoryJsonl('{"type":"relation","from":"a"}')).toThrow(/relation needs/);
    expect(() => parseMemoryJsonl('{nope')).toThrow(/not valid JSON/);
  });

  it('for any graph: one memory per distinct entity name, each observation and relation in its text', () => {
    const name = fc.constantFrom('A', 'B', 'C', 'D');
    const entity = fc.record({
      type: fc.constant('entity'),
      name,
      entityType: fc.constantFrom('person', 'thing'),
      observations: fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 3 }),
    });
    const relation = fc.record({
      type: fc.constant('relation'),
      from: name,
      to: name,
      relationType: fc.constantFrom('knows', 'owns'),
    });
    fc.assert(
      fc.property(fc.array(fc.oneof(entity, relation), { maxLength: 12 }), (records) => {
        const memories = graphToMemories(records.map(line).join(''));
        const names = [...new Set(records.filter((r) => r.type === 'entity').map((r) => r.name))];
        expect(memories.map((m) => m.metadata.entity)).toEqual(names);
        for (const record of records) {
          if (record.type === 'entity') {
            const memory = memories.find((m) => m.metadata.entity === record.name);
            for (const observation of (record as { observations: string[] }).observations)
              expect(memory?.text).toContain(`- ${observation}`);
          } else {
            const r = record as { from: string; to: string; relationType: string };
            for (const end of [r.from, r.to]) {
              memories.find((m) => m.metadata.entity === end)?.text.includes(`- ${r.from} ${r.relationType} ${r.to}`) ??
                true;
              const memory = memories.find((m) => m.metadata.entity === end);
              if (memory) expect(memory.text).toContain(`- ${r.from} ${r.relationType} ${r.to}`);
            }
          }
        }
      }),
    );
  });

  it('memoryUpdate: nothing when the stored memory already matches, else only what differs (null removes)', () => {
    const draft = entityToMemory({ name: 'A', entityType: 'person', observations: ['x'] }, []);
    const stored = { memory_id: 'mem_1', text: draft.text, metadata: { ...draft.metadata, priority: 'high' } };
    expect(memoryUpdate(stored, draft)).toBeUndefined();
    expect(memoryUpdate({ ...stored, text: 'old' }, draft)).toEqual({ text: draft.text });
    const retyped = entityToMemory({ name: 'A', entityType: 'y'.repeat(60), observations: ['x'] }, []);
    expect(memoryUpdate(stored, retyped)).toEqual({ metadata: { category: 'y'.repeat(60), tags: null } });
  });
});
