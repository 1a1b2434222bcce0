import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SEARCH_MAX_WORDS, searchWords } from '../common/search-words.js';
import { analyze } from './analyzer.js';
import { keywordScore } from './keyword-score.js';
import { planQuery, synonymsOf } from './query-analysis.js';
import { editsOf, MAX_TERMS, PREFIX_CONCEPTS, resolveQuery, TYPO_MAX, TYPO_WORDS } from './term-expansion.js';

const plan = (search: string) => planQuery(searchWords(search, 'letters'));
const analysed = (text: string) => ` ${analyze(text).join(' ')} `;

describe('planQuery', () => {
  it('drops question and filler words and keeps the meaningful ones', () => {
    const p = plan('How do we roll back a bad deploy?');
    expect(p.concepts.map((c) => c.word)).toEqual(['roll', 'back', 'bad', 'deploy']);
    expect(p.dropped).toEqual(['how', 'do', 'we', 'a']);
    // Words that carry meaning in technical text stay.
    expect(plan('not up down off all').concepts.map((c) => c.word)).toEqual(['not', 'up', 'down', 'off', 'all']);
  });

  it('keeps every word when all of them are filler', () => {
    const p = plan('what is this');
    expect(p.concepts.map((c) => c.word)).toEqual(['what', 'is', 'this']);
    expect(p.dropped).toEqual([]);
  });

  it('adds neighbours written as one word and synonyms, never the stem itself', () => {
    const [roll, back] = plan('roll back').concepts;
    expect(roll?.alternatives).toContainEqual({ term: 'rollback', kind: 'joined' });
    expect(back?.alternatives).toContainEqual({ term: 'rollback', kind: 'joined' });
    const [deploy] = plan('deployments').concepts;
    expect(deploy?.alternatives.map((a) => a.term)).toEqual(expect.arrayContaining(['releas', 'rollout']));
    // Porter's y/i: "deploy" → "deploi" but "deployment" → "deploy"; each finds the other.
    expect(plan('deploy').concepts[0]?.alternatives).toContainEqual({ term: 'deploy', kind: 'exact' });
    expect(deploy?.alternatives).toContainEqual({ term: 'deploi', kind: 'exact' });
    expect(synonymsOf('k8s')).toContain('kubernet');
    for (const concept of plan('rollback revert database k8s').concepts) {
      expect(concept.alternatives.map((a) => a.term)).not.toContain(concept.stem);
    }
  });

  it('gives one concept per distinct stem and at most a fixed number of alternatives each', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 40 }), (words) => {
        let parsed: string[];
        try {
          parsed = searchWords(words.join(' '), 'letters');
        } catch {
          return; // over the search bounds: refused before analysis
        }
        const p = planQuery(parsed);
        expect(p.concepts.length).toBeLessThanOrEqual(SEARCH_MAX_WORDS);
        expect(new Set(p.concepts.map((c) => c.stem)).size).toBe(p.concepts.length);
        for (const c of p.concepts) expect(c.alternatives.length).toBeLessThanOrEqual(12);
      }),
    );
  });
});

describe('editsOf', () => {
  it('holds every spelling one edit away, transpositions included, and not the word', () => {
    const edits = editsOf('kuberentes');
    expect(edits.has('kubernetes')).toBe(true); // swapped
    expect(editsOf('relase').has('release')).toBe(true); // left out
    expect(editsOf('postgress').has('postgres')).toBe(true); // added
    expect(editsOf('consnet').has('consent')).toBe(true);
    expect(edits.has('kuberentes')).toBe(false);
  });

  it('is bounded by 54 × length + 26 spellings', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,20}$/), (word) => {
        expect(editsOf(word).size).toBeLessThanOrEqual(54 * word.length + 26);
      }),
    );
  });
});

describe('keywordScore', () => {
  const corpus = { documents: 100, averageLength: 10 };
  const concept = (word: string, documents = 5) => ({
    word,
    terms: [{ term: analyze(word)[0] as string, kind: 'exact' as const, documents }],
  });

  it('prefers a memory holding every word to one repeating a single word', () => {
    const concepts = [concept('rollback'), concept('kubernetes')];
    const both = keywordScore(concepts, corpus, analysed('rollback on kubernetes with argo'), 5);
    const one = keywordScore(concepts, corpus, analysed('rollback rollback rollback rollback steps'), 5);
    expect(both.coverage).toBe(1);
    expect(one.coverage).toBe(0.5);
    expect(both.raw).toBeGreaterThan(one.raw);
  });

  it('rewards query words that stand together', () => {
    const concepts = [concept('feature'), concept('flag')];
    const near = keywordScore(concepts, corpus, analysed('feature flag owners and other words here'), 7);
    const far = keywordScore(concepts, corpus, analysed('feature owners and other words here flag'), 7);
    expect(near.proximity).toBe(1);
    expect(far.proximity).toBeLessThan(1);
    expect(near.raw).toBeGreaterThan(far.raw);
  });

  it('counts each query word once, by its best term, and says how it matched', () => {
    const concepts = [
      {
        word: 'undo',
        terms: [
          { term: 'undo', kind: 'exact' as const, documents: 0 },
          { term: 'rollback', kind: 'synonym' as const, documents: 5 },
          { term: 'revert', kind: 'synonym' as const, documents: 5 },
        ],
      },
    ];
    const score = keywordScore(concepts, corpus, analysed('rollback and revert'), 3);
    expect(score.matched).toEqual([{ word: 'undo', term: 'rollback', kind: 'synonym' }]);
    const single = keywordScore(concepts, corpus, analysed('rollback and nothing'), 3);
    expect(score.bm25).toBeCloseTo(single.bm25, 10);
  });

  it('never lets an alternative count for more than the word itself', () => {
    // "release" is common, its synonym "deploy" rare: the memory with the very word must not lose.
    const concepts = [
      {
        word: 'release',
        terms: [
          { term: 'releas', kind: 'exact' as const, documents: 60 },
          { term: 'deploi', kind: 'synonym' as const, documents: 1 },
        ],
      },
    ];
    const word = keywordScore(concepts, corpus, analysed('the release notes'), 3);
    const synonym = keywordScore(concepts, corpus, analysed('the deploys notes'), 3);
    expect(word.raw).toBeGreaterThan(synonym.raw);
  });
});

describe('resolveQuery bounds', () => {
  /** A store that answers from a fixed vocabulary and counts what it is asked. */
  function fakeStore(vocabulary: Record<string, number>) {
    const asked = { statistics: 0, terms: 0, prefixes: 0 };
    return {
      asked,
      store: {
        async termStatistics(_user: string, terms: readonly string[]) {
          asked.statistics++;
          asked.terms += terms.length;
          return { documents: 1000, averageLength: 20, frequencies: terms.map((t) => vocabulary[t] ?? 0) };
        },
        async termsWithPrefix(_user: string, prefix: string, limit: number, scan: number) {
          asked.prefixes++;
          return Object.entries(vocabulary)
            .filter(([term]) => term.startsWith(prefix) && term !== prefix)
            .slice(0, scan)
            .map(([term, documents]) => ({ term, documents }))
            .sort((a, b) => b.documents - a.documents)
            .slice(0, limit);
        },
      },
    };
  }

  it('finds prefix completions and typo corrections from the vocabulary', async () => {
    const { store } = fakeStore({ kubernet: 40, rollback: 10, idempot: 7, idempotencykei: 1 });
    const resolved = await resolveQuery(store, 'u', plan('kuberentes rollbak idempo'));
    const kinds = Object.fromEntries(resolved.concepts.map((c) => [c.word, c.terms.filter((t) => t.documents > 0)]));
    expect(kinds.kuberentes).toEqual([{ term: 'kubernet', kind: 'typo', documents: 40 }]);
    expect(kinds.rollbak).toEqual([{ term: 'rollback', kind: 'typo', documents: 10 }]);
    // A partial word: its completions, most frequent first.
    expect(kinds.idempo).toEqual([
      { term: 'idempot', kind: 'prefix', documents: 7 },
      { term: 'idempotencykei', kind: 'prefix', documents: 1 },
    ]);
    expect(resolved.terms).toEqual(expect.arrayContaining(['kubernet', 'rollback', 'idempot']));
  });

  it('takes no prefix completions for a word the user has written', async () => {
    const { store, asked } = fakeStore({ roll: 5, rollout: 9, rollback: 3 });
    const resolved = await resolveQuery(store, 'u', plan('roll'));
    expect(asked.prefixes).toBe(0);
    expect(resolved.concepts[0]?.terms.map((t) => t.kind)).not.toContain('prefix');
  });

  it('asks a bounded number of questions for the longest search', async () => {
    const { store, asked } = fakeStore({});
    const longest = Array.from({ length: SEARCH_MAX_WORDS }, (_, i) => `${'q'.repeat(TYPO_MAX - 2)}${i}x`).join(' ');
    const resolved = await resolveQuery(store, 'u', plan(longest));
    expect(asked.statistics).toBeLessThanOrEqual(2);
    expect(asked.prefixes).toBeLessThanOrEqual(PREFIX_CONCEPTS);
    // Stems and alternatives of 32 words, then the spellings of at most TYPO_WORDS unknown words.
    expect(asked.terms).toBeLessThanOrEqual(SEARCH_MAX_WORDS * 13 + TYPO_WORDS * (54 * TYPO_MAX + 26));
    expect(resolved.terms.length).toBeLessThanOrEqual(MAX_TERMS);
  });
});
