/**
 * Retrieval metrics over graded judgments (grade 1–3). A memory is relevant for recall and MRR when its
 * grade is at least RELEVANT; nDCG uses every grade with gain 2^grade − 1.
 */
export const RELEVANT = 2;

export interface QueryMetrics {
  r5: number;
  r10: number;
  mrr: number;
  ndcg10: number;
}

const relevantIds = (grades: ReadonlyMap<string, number>) =>
  [...grades].filter(([, grade]) => grade >= RELEVANT).map(([id]) => id);

/** Share of the relevant memories in the first k, out of as many as k can hold (min(relevant, k)). */
export function recallAt(ranked: readonly string[], grades: ReadonlyMap<string, number>, k: number): number {
  const relevant = relevantIds(grades);
  if (relevant.length === 0) return 1;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / Math.min(relevant.length, k);
}

/** 1 / rank of the first relevant memory (0 when none is in the list). */
export function reciprocalRank(ranked: readonly string[], grades: ReadonlyMap<string, number>): number {
  const at = ranked.findIndex((id) => (grades.get(id) ?? 0) >= RELEVANT);
  return at === -1 ? 0 : 1 / (at + 1);
}

export function ndcgAt(ranked: readonly string[], grades: ReadonlyMap<string, number>, k: number): number {
  const dcg = (gains: number[]) => gains.slice(0, k).reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
  const gain = (grade: number) => 2 ** grade - 1;
  const ideal = dcg([...grades.values()].sort((a, b) => b - a).map(gain));
  if (ideal === 0) return 1;
  return dcg(ranked.map((id) => gain(grades.get(id) ?? 0))) / ideal;
}

export function queryMetrics(ranked: readonly string[], grades: ReadonlyMap<string, number>): QueryMetrics {
  return {
    r5: recallAt(ranked, grades, 5),
    r10: recallAt(ranked, grades, 10),
    mrr: reciprocalRank(ranked, grades),
    ndcg10: ndcgAt(ranked, grades, 10),
  };
}

export function mean(metrics: readonly QueryMetrics[]): QueryMetrics {
  const n = Math.max(metrics.length, 1);
  const sum = (key: keyof QueryMetrics) => metrics.reduce((total, m) => total + m[key], 0) / n;
  return { r5: sum('r5'), r10: sum('r10'), mrr: sum('mrr'), ndcg10: sum('ndcg10') };
}
