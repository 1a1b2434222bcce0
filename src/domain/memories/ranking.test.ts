import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Priority } from './memory-schemas.js';
import {
  compareRanked,
  DEFAULT_RANKING,
  keywordPart,
  PROJECT_SCORES,
  priorityPart,
  projectPart,
  type RankingConfig,
  type RankingRow,
  recencyPart,
  scoreOf,
  semanticPart,
} from './ranking.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2025, 5, 1);

const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const positive = fc.double({ min: Number.MIN_VALUE, max: 1e6, noNaN: true });
/** Epoch milliseconds anywhere in the range a Date can hold. */
const epochMs = fc.integer({ min: -8.64e15, max: 8.64e15 });
const priorityArb = fc.constantFrom<Priority | null>('high', 'medium', 'low', null);

const SEGMENT = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-';
const segmentArb = fc.string({ unit: fc.constantFrom(...SEGMENT), minLength: 1, maxLength: 6 });
const projectArb = fc.array(segmentArb, { minLength: 1, maxLength: 6 }).map((s) => s.join('/'));
/** Project names with a small alphabet so that prefixes, ancestors and descendants occur often. */
const nearProjectArb = fc
  .array(fc.constantFrom('a', 'b', 'ab', 'a-b'), { minLength: 1, maxLength: 5 })
  .map((s) => s.join('/'));
const anyProjectString = fc.oneof(fc.string(), projectArb, nearProjectArb);

const inUnitInterval = (value: number) => value >= 0 && value <= 1;

describe('keywordPart', () => {
  const bestArb = fc.double({ min: 1e-3, max: 1e6, noNaN: true });

  it('stays in [0, 1] for any finite BM25 and best BM25', () => {
    fc.assert(
      fc.property(finite, finite, (bm25, best) => {
        expect(inUnitInterval(keywordPart(bm25, best)), `${bm25} ${best}`).toBe(true);
      }),
    );
  });

  it('is 0 for a BM25 of zero or below, and when no candidate matched (best ≤ 0)', () => {
    for (const bm25 of [0, -0, -1e-9, -3, -1e300]) expect(keywordPart(bm25, 10), String(bm25)).toBe(0);
    expect(keywordPart(1, 0)).toBe(0);
    expect(keywordPart(1, -1)).toBe(0);
    fc.assert(
      fc.property(fc.double({ max: 0, noNaN: true }), finite, (bm25, best) => {
        expect(keywordPart(bm25, best)).toBe(0);
      }),
    );
  });

  it('gives the best candidate 1 and a candidate at half the best BM25 0.5', () => {
    expect(keywordPart(10, 10)).toBe(1);
    expect(keywordPart(5, 10)).toBe(0.5);
    expect(keywordPart(2.5, 10)).toBe(0.25);
    fc.assert(
      fc.property(bestArb, (best) => {
        expect(keywordPart(best, best)).toBe(1);
        expect(keywordPart(best / 2, best)).toBeCloseTo(0.5, 12);
      }),
    );
  });

  it('does not depend on the absolute BM25 scale', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        bestArb,
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        (bm25, best, scale) => {
          expect(keywordPart(bm25 * scale, best * scale)).toBeCloseTo(keywordPart(bm25, best), 9);
        },
      ),
    );
  });

  it('increases strictly with BM25 up to the best BM25 and is capped at 1', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        fc.double({ min: 1e-3, max: 2e3, noNaN: true }),
        (low, delta, best) => {
          const high = low + delta;
          const a = keywordPart(low, best);
          const b = keywordPart(high, best);
          expect(a).toBeGreaterThan(0);
          if (high <= best) expect(b).toBeGreaterThan(a);
          else expect(b).toBe(1);
        },
      ),
    );
  });

  it('does not increase when the best BM25 grows', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        bestArb,
        fc.double({ min: 0, max: 1e3, noNaN: true }),
        (bm25, best, more) => {
          expect(keywordPart(bm25, best + more)).toBeLessThanOrEqual(keywordPart(bm25, best));
        },
      ),
    );
  });
});

describe('priorityPart', () => {
  it('ranks high 1 > medium or absent 0.5 > low 0', () => {
    expect(priorityPart('high')).toBe(1);
    expect(priorityPart('medium')).toBe(0.5);
    expect(priorityPart(null)).toBe(0.5);
    expect(priorityPart('low')).toBe(0);
  });

  it('stays in [0, 1]', () => {
    fc.assert(fc.property(priorityArb, (priority) => inUnitInterval(priorityPart(priority))));
  });
});

describe('recencyPart', () => {
  it('stays in [0, 1] for any timestamps and positive half-life', () => {
    fc.assert(
      fc.property(epochMs, epochMs, positive, (recencyMs, nowMs, halfLife) => {
        expect(inUnitInterval(recencyPart(recencyMs, nowMs, halfLife))).toBe(true);
      }),
    );
    fc.assert(
      fc.property(finite, finite, positive, (recencyMs, nowMs, halfLife) => {
        expect(inUnitInterval(recencyPart(recencyMs, nowMs, halfLife))).toBe(true);
      }),
    );
  });

  it('is 1 at age 0', () => {
    expect(recencyPart(NOW, NOW, 30)).toBe(1);
    fc.assert(fc.property(epochMs, positive, (t, halfLife) => recencyPart(t, t, halfLife) === 1));
  });

  it('is 0.5 at the half-life', () => {
    expect(recencyPart(NOW - 30 * DAY, NOW, 30)).toBe(0.5);
    expect(recencyPart(NOW - DEFAULT_RANKING.recencyHalfLifeDays * DAY, NOW, DEFAULT_RANKING.recencyHalfLifeDays)).toBe(
      0.5,
    );
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 10_000, noNaN: true }), (halfLife) => {
        expect(recencyPart(NOW - halfLife * DAY, NOW, halfLife)).toBeCloseTo(0.5, 9);
      }),
    );
  });

  it('decreases strictly with age', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3650 * DAY }),
        fc.integer({ min: 1, max: 3650 * DAY }),
        fc.double({ min: 0.1, max: 1000, noNaN: true }),
        (age, extra, halfLife) => {
          expect(recencyPart(NOW - age - extra, NOW, halfLife)).toBeLessThan(recencyPart(NOW - age, NOW, halfLife));
        },
      ),
    );
    expect(recencyPart(NOW - 90 * DAY, NOW, 30)).toBeCloseTo(0.25, 12);
  });

  it('is 1 for timestamps in the future (clock skew)', () => {
    expect(recencyPart(NOW + DAY, NOW, 30)).toBe(1);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e12 }), positive, (ahead, halfLife) => {
        expect(recencyPart(NOW + ahead, NOW, halfLife)).toBe(1);
      }),
    );
  });
});

describe('projectPart', () => {
  it('is 1 for every memory when no project is searched', () => {
    expect(projectPart(null, undefined)).toBe(1);
    expect(projectPart('acme', undefined)).toBe(1);
    expect(projectPart('other/deep/path', undefined)).toBe(1);
  });

  it('ranks self 1 > descendant 0.75 > parent 0.5 > grandparent 0.45 > global 0.25', () => {
    const project = 'acme/backend/api';
    const self = projectPart('acme/backend/api', project);
    const child = projectPart('acme/backend/api/auth', project);
    const grandchild = projectPart('acme/backend/api/auth/jwt', project);
    const parent = projectPart('acme/backend', project);
    const grandparent = projectPart('acme', project);
    const global = projectPart(null, project);
    expect(self).toBe(1);
    expect(child).toBe(0.75);
    expect(grandchild).toBe(0.75);
    expect(parent).toBe(0.5);
    expect(grandparent).toBeCloseTo(0.45, 12);
    expect(global).toBe(0.25);
    expect(self).toBeGreaterThan(child);
    expect(child).toBeGreaterThan(parent);
    expect(parent).toBeGreaterThan(grandparent);
    expect(grandparent).toBeGreaterThan(global);
  });

  it('loses 0.05 per further ancestor level but never goes below 0.35', () => {
    const project = Array.from({ length: 12 }, (_, i) => `p${i}`).join('/');
    const segments = project.split('/');
    const scores: number[] = [];
    for (let keep = segments.length - 1; keep >= 1; keep--) {
      scores.push(projectPart(segments.slice(0, keep).join('/'), project));
    }
    // Nearest ancestor first.
    expect(scores[0]).toBe(0.5);
    expect(scores[1]).toBeCloseTo(0.45, 12);
    expect(scores[2]).toBeCloseTo(0.4, 12);
    expect(scores[3]).toBeCloseTo(0.35, 12);
    for (const score of scores.slice(3)) expect(score).toBeCloseTo(PROJECT_SCORES.minAncestor, 12);
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeLessThanOrEqual(scores[i - 1] as number);
    for (const score of scores) {
      expect(score).toBeGreaterThanOrEqual(0.35 - 1e-12);
      expect(score).toBeGreaterThan(PROJECT_SCORES.global);
    }
  });

  it('is 0 for unrelated and sibling projects, including ones sharing a name prefix', () => {
    const project = 'acme/backend';
    for (const other of ['acme/backend2', 'acme/frontend', 'acme/back', 'acme/backend-api', 'acmex', 'other', 'ac']) {
      expect(projectPart(other, project), other).toBe(0);
    }
    expect(projectPart('acme/backend2/x', project)).toBe(0);
    expect(projectPart('acme/backend', 'acme/backend2')).toBe(0);
    expect(projectPart('a', 'ab/c')).toBe(0);
  });

  it('stays in [0, 1] for arbitrary strings', () => {
    fc.assert(
      fc.property(
        fc.option(anyProjectString),
        fc.option(anyProjectString, { nil: undefined }),
        (candidate, project) => {
          expect(inUnitInterval(projectPart(candidate, project))).toBe(true);
        },
      ),
    );
  });

  it('classifies related valid projects and orders them self > descendant > ancestor > global', () => {
    fc.assert(
      fc.property(nearProjectArb, nearProjectArb, (candidate, project) => {
        const score = projectPart(candidate, project);
        if (candidate === project) expect(score).toBe(1);
        else if (candidate.startsWith(`${project}/`)) expect(score).toBe(0.75);
        else if (project.startsWith(`${candidate}/`)) {
          expect(score).toBeGreaterThanOrEqual(0.35 - 1e-12);
          expect(score).toBeLessThanOrEqual(0.5);
        } else expect(score).toBe(0);
      }),
    );
  });
});

describe('scoreOf', () => {
  const rowArb: fc.Arbitrary<RankingRow> = fc.record({
    seq: fc.nat(),
    projectName: fc.option(nearProjectArb),
    priority: priorityArb,
    recencyMs: fc.integer({ min: NOW - 5000 * DAY, max: NOW + DAY }),
    bm25: fc.double({ min: -10, max: 1000, noNaN: true }),
  });
  /** Non-negative weights summing to 1, like the defaults. */
  const weightsArb = fc
    .tuple(fc.nat(1000), fc.nat(1000), fc.nat(1000), fc.nat(1000))
    .filter((w) => w.some((x) => x > 0))
    .map(([k, p, pr, r]) => {
      const sum = k + p + pr + r;
      return { keyword: k / sum, project: p / sum, priority: pr / sum, recency: r / sum };
    });
  const configArb: fc.Arbitrary<RankingConfig> = fc.record({
    weights: fc.oneof(fc.constant(DEFAULT_RANKING.weights), weightsArb),
    recencyHalfLifeDays: fc.double({ min: 0.1, max: 1000, noNaN: true }),
    candidateLimit: fc.constant(2000),
  });

  const row = (overrides: Partial<RankingRow>): RankingRow => ({
    seq: 1,
    projectName: 'acme',
    priority: 'medium',
    recencyMs: NOW - 10 * DAY,
    bm25: 3,
    ...overrides,
  });
  const context = { project: 'acme', nowMs: NOW, bestBm25: 6 };
  const score = (overrides: Partial<RankingRow>, bestBm25 = context.bestBm25) =>
    scoreOf(row(overrides), { ...context, bestBm25 }, DEFAULT_RANKING).score;
  /** Like the service: the best BM25 is the largest among the candidates (and at least 0). */
  const bestFor = (r: RankingRow, extra: number) => Math.max(r.bm25, 0) + extra;
  const extraArb = fc.double({ min: 0, max: 100, noNaN: true });
  /** Checks a property for any row, extra BM25 headroom, (maybe) project and config. */
  const forEveryScoredRow = (
    check: (r: RankingRow, extra: number, project: string | undefined, config: RankingConfig) => void,
  ) => fc.assert(fc.property(rowArb, extraArb, fc.option(nearProjectArb, { nil: undefined }), configArb, check));

  it('gives a score equal to the weighted sum of the returned parts, which carry the weights', () => {
    forEveryScoredRow((r, extra, project, config) => {
      const { score, parts } = scoreOf(r, { project, nowMs: NOW, bestBm25: bestFor(r, extra) }, config);
      expect(parts.weights).toEqual(config.weights);
      const w = parts.weights;
      const sum =
        w.keyword * parts.keyword + w.project * parts.project + w.priority * parts.priority + w.recency * parts.recency;
      expect(Math.abs(score - sum)).toBeLessThanOrEqual(1e-6 + 1e-12);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1 + 1e-9);
    });
  });

  it('reports each part as computed by the part functions, plus the raw BM25', () => {
    forEveryScoredRow((r, extra, project, config) => {
      const best = bestFor(r, extra);
      const { parts } = scoreOf(r, { project, nowMs: NOW, bestBm25: best }, config);
      const close = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(5e-7);
      close(parts.keyword, keywordPart(r.bm25, best));
      close(parts.project, projectPart(r.projectName, project));
      expect(parts.priority).toBe(priorityPart(r.priority));
      close(parts.recency, recencyPart(r.recencyMs, NOW, config.recencyHalfLifeDays));
      close(parts.bm25, r.bm25);
      for (const part of [parts.keyword, parts.project, parts.priority, parts.recency]) {
        expect(inUnitInterval(part)).toBe(true);
      }
    });
  });

  it('does not share the weights object with the config', () => {
    const { parts } = scoreOf(row({}), context, DEFAULT_RANKING);
    expect(parts.weights).toEqual(DEFAULT_RANKING.weights);
    expect(parts.weights).not.toBe(DEFAULT_RANKING.weights);
  });

  it('with the default weights, a keyword part difference of 0.5 outweighs the whole priority range', () => {
    const w = DEFAULT_RANKING.weights;
    expect(w.keyword * 0.5).toBeGreaterThan(w.priority * (priorityPart('high') - priorityPart('low')));
    // best 8: keyword parts 0.75 (BM25 6) vs 0.25 (BM25 2).
    expect(score({ bm25: 6, priority: 'low' }, 8)).toBeGreaterThan(score({ bm25: 2, priority: 'high' }, 8));
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.double({ min: 1e-3, max: 1000, noNaN: true }),
        fc.constantFrom<Priority | null>('low', 'medium', null),
        (weakPart, best, priority) => {
          // BM25 values giving keyword parts weakPart and weakPart + 0.5.
          const strong = score({ bm25: (weakPart + 0.5) * best, priority }, best);
          const weak = score({ bm25: weakPart * best, priority: 'high' }, best);
          expect(strong).toBeGreaterThan(weak);
        },
      ),
    );
  });

  it('orders, all else equal: better keyword match, higher priority, more recent, closer project first', () => {
    expect(score({ bm25: 6 })).toBeGreaterThan(score({ bm25: 4 }));
    expect(score({ bm25: 0.1 })).toBeGreaterThan(score({ bm25: 0 }));
    expect(score({ priority: 'high' })).toBeGreaterThan(score({ priority: 'medium' }));
    expect(score({ priority: 'medium' })).toBeGreaterThan(score({ priority: 'low' }));
    expect(score({ priority: null })).toBe(score({ priority: 'medium' }));
    expect(score({ recencyMs: NOW - DAY })).toBeGreaterThan(score({ recencyMs: NOW - 100 * DAY }));
    expect(score({ projectName: 'acme' })).toBeGreaterThan(score({ projectName: 'acme/sub' }));
    expect(score({ projectName: 'acme/sub' })).toBeGreaterThan(score({ projectName: null }));
    expect(
      scoreOf(row({ projectName: 'acme' }), { ...context, project: 'acme/sub' }, DEFAULT_RANKING).score,
    ).toBeGreaterThan(scoreOf(row({ projectName: null }), { ...context, project: 'acme/sub' }, DEFAULT_RANKING).score);
  });

  it('computes a hand-worked example', () => {
    const weights = { keyword: 0.5, project: 0.2, priority: 0.2, recency: 0.1 };
    const { score: s, parts } = scoreOf(
      row({ bm25: 3, priority: 'high', recencyMs: NOW - 30 * DAY, projectName: 'acme/sub' }),
      context,
      { ...DEFAULT_RANKING, weights, recencyHalfLifeDays: 30 },
    );
    expect(parts).toEqual({ keyword: 0.5, project: 0.75, priority: 1, recency: 0.5, weights, bm25: 3 });
    expect(s).toBeCloseTo(0.5 * 0.5 + 0.2 * 0.75 + 0.2 * 1 + 0.1 * 0.5, 12);
  });
});

describe('compareRanked', () => {
  const entry = fc.record({
    exact: fc.double({ min: 0, max: 1, noNaN: true }),
    row: fc.record({ recencyMs: fc.integer({ min: NOW - 100 * DAY, max: NOW }), seq: fc.nat() }),
  });

  it('orders by the unrounded score, then the more recent access, then the newer row', () => {
    const tie = { exact: 0.9249998, row: { recencyMs: NOW - 10_000, seq: 2 } };
    const readLater = { exact: 0.9249999, row: { recencyMs: NOW - 5_000, seq: 1 } };
    expect([tie, readLater].sort(compareRanked)).toEqual([readLater, tie]);
    const sameScore = { ...tie, row: { recencyMs: NOW, seq: 1 } };
    expect([tie, sameScore].sort(compareRanked)).toEqual([sameScore, tie]);
    const newerRow = { ...tie, row: { ...tie.row, seq: 3 } };
    expect([tie, newerRow].sort(compareRanked)).toEqual([newerRow, tie]);
  });

  it('is a total order: antisymmetric, and zero only for equal keys', () => {
    fc.assert(
      fc.property(entry, entry, (a, b) => {
        const ab = compareRanked(a, b);
        expect(Math.sign(ab)).toBe(-Math.sign(compareRanked(b, a)) || 0);
        if (ab === 0) expect([a.exact, a.row.recencyMs, a.row.seq]).toEqual([b.exact, b.row.recencyMs, b.row.seq]);
      }),
    );
  });

  it('scoreOf rounds what clients see but keeps the exact score for ordering', () => {
    const { score, exact } = scoreOf(
      { seq: 1, projectName: null, priority: null, recencyMs: NOW - 5_000, bm25: 0 },
      { project: undefined, nowMs: NOW, bestBm25: 0 },
      DEFAULT_RANKING,
    );
    expect(score).toBe(Math.round(exact * 1e6) / 1e6);
    expect(exact).not.toBe(score);
  });
});

describe('the semantic part (issue 17)', () => {
  const row = { seq: 1, projectName: null, priority: null, recencyMs: 0, bm25: 0 };
  const context = { project: undefined, nowMs: 0, bestBm25: 0 };

  it('is absent without a semantic weight, so scores stay exactly as before', () => {
    const plain = scoreOf({ ...row, similarity: 0.9 }, context, DEFAULT_RANKING);
    expect(plain.parts).not.toHaveProperty('semantic');
    expect(plain.parts).not.toHaveProperty('vector_search');
    expect(plain.exact).toBe(scoreOf(row, context, DEFAULT_RANKING).exact);
  });

  it('adds weight × clamped similarity, and explains it', () => {
    const config = { ...DEFAULT_RANKING, weights: { ...DEFAULT_RANKING.weights, semantic: 0.5 } };
    const base = scoreOf(row, { ...context, vectors: 'used' }, config);
    const near = scoreOf({ ...row, similarity: 0.8 }, { ...context, vectors: 'used' }, config);
    expect(near.exact - base.exact).toBeCloseTo(0.4, 9);
    expect(near.parts).toMatchObject({ semantic: 0.8, similarity: 0.8, vector_search: 'used' });
    expect(base.parts).toMatchObject({ semantic: 0, vector_search: 'used' });
    expect(base.parts).not.toHaveProperty('similarity');
    const down = scoreOf(row, { ...context, vectors: 'unavailable' }, config);
    expect(down.parts.vector_search).toBe('unavailable');
    expect(semanticPart(-0.3)).toBe(0);
    expect(semanticPart(1.2)).toBe(1);
    expect(semanticPart(Number.NaN)).toBe(0);
  });
});
