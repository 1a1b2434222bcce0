import type { Actor } from '../common/actor.js';
import { ValidationError } from '../common/errors.js';
import { ancestorsOf, assertProjectName } from '../common/project.js';
import { searchWords } from '../common/search-words.js';
import { type KeywordScore, keywordScore } from './keyword-score.js';
import { toMemory } from './memory-presenter.js';
import type { RankedMemory } from './memory-schemas.js';
import { type AccessSink, type MemoryServiceDeps, type SearchInput, visibilityFilter } from './memory-service.js';
import type { KeywordCandidate, MemoryFilter, MemoryRecord, ProjectScope } from './memory-store.js';
import { planQuery } from './query-analysis.js';
import { compareRanked, type KeywordDetail, type RankingRow, scoreOf } from './ranking.js';
import type { SemanticResult, VectorStatus } from './semantic.js';
import { resolveQuery } from './term-expansion.js';

/**
 * Hybrid candidates (docs/memory-search.md, *Semantic search*): the keyword matches, each with its
 * similarity to the query, plus the nearest memories no keyword found. The ranking weights then decide.
 */
async function withVectors(
  rows: RankingRow[],
  near: SemanticResult,
): Promise<{ rows: RankingRow[]; added: number; status: VectorStatus }> {
  if (near.status !== 'used') return { rows, added: 0, status: near.status };
  const known = new Map(near.near.map((row) => [row.seq, row.similarity]));
  const missing = rows.filter((row) => !known.has(row.seq)).map((row) => row.seq);
  const measured = missing.length > 0 ? await near.similarityOf(missing) : new Map<number, number>();
  const keywordSeqs = new Set(rows.map((row) => row.seq));
  const scored = rows.map((row) => {
    const similarity = known.get(row.seq) ?? measured.get(row.seq);
    return similarity === undefined ? row : { ...row, similarity };
  });
  const extra = near.near.filter((row) => !keywordSeqs.has(row.seq));
  return { rows: [...scored, ...extra], added: extra.length, status: 'used' };
}

/**
 * Search words as the full-text index sees them: runs of letters and digits, lowercased, distinct, and
 * bounded (src/domain/common/search-words.ts: a 400 naming `search` beyond them).
 */
export const searchTerms = (search: string): string[] => searchWords(search, 'letters');

/** Marks memories as read now: the answer shows it at once, the store gets it in the next batch. */
export function touch(access: AccessSink, records: MemoryRecord[], now: Date): void {
  const at = now.toISOString();
  for (const record of records) {
    record.lastAccessedAt = at;
    access.record(record.userId, record.id, now);
  }
}

export async function searchMemories(
  { memories, access, clock, ranking, semantic }: MemoryServiceDeps,
  actor: Actor,
  input: SearchInput,
): Promise<{ memories: RankedMemory[]; total: number }> {
  const now = clock.now();
  const terms = searchTerms(input.search);
  // Ranking looks at a bounded candidate set (keyword matches, or per-group context rows), as deep as the
  // page needs; a page that starts beyond the bound would make the set unbounded, so it is refused.
  if (input.offset > 0 && input.offset >= ranking.candidateLimit) {
    const lastPage = Math.floor((ranking.candidateLimit - 1) / input.limit) + 1;
    throw new ValidationError({
      page: `Ranked results go ${ranking.candidateLimit} deep: page must be at most ${lastPage} at per_page ${input.limit}`,
    });
  }
  // Checked here too, whatever the transport validated: the ancestors list and the index query grow
  // with the name's depth.
  if (input.project_name !== undefined) assertProjectName(input.project_name);
  const scope: ProjectScope | undefined =
    input.project_name === undefined
      ? undefined
      : { project: input.project_name, ancestors: ancestorsOf(input.project_name) };
  const filter: MemoryFilter = {
    ...(input.category !== undefined && { category: input.category }),
    ...(input.priority !== undefined && { priority: input.priority }),
    ...(input.pinned !== undefined && { pinned: input.pinned }),
    ...visibilityFilter(input.visibility, now),
    tags: input.tags,
  };
  const wanted = input.offset + input.limit;

  let rows: RankingRow[];
  let total: number;
  let vectors: VectorStatus | undefined;
  const details = new Map<number, KeywordDetail>();
  if (terms.length > 0) {
    const plan = planQuery(terms);
    // The query's vector is asked for beside the keyword work (semantic.ts: never longer than its timeout).
    const near = semantic?.search(actor.userId, { text: input.search, ...(scope && { scope }), filter });
    const query = await resolveQuery(memories, actor.userId, plan);
    const cap = Math.max(ranking.candidateLimit, wanted);
    const base = { ...filter, terms: query.terms, ...(scope && { scope }) };
    let matches: KeywordCandidate[] = await memories.keywordCandidates(actor.userId, { ...base, limit: cap + 1 });
    if (matches.length <= cap) {
      total = matches.length;
    } else {
      // More matches than we rank: take the newest ones plus the newest high-priority and in-project
      // ones (docs/memory-search.md explains the bound).
      matches = matches.slice(0, cap);
      const extraLimit = Math.ceil(cap / 2);
      const seen = new Set(matches.map((row) => row.seq));
      const extra = await Promise.all([
        memories.keywordCandidates(actor.userId, { ...base, only: 'high', limit: extraLimit, known: seen }),
        scope
          ? memories.keywordCandidates(actor.userId, { ...base, only: 'project', limit: extraLimit, known: seen })
          : [],
      ]);
      for (const row of extra.flat()) if (!seen.has(row.seq) && seen.add(row.seq)) matches.push(row);
      total = input.withTotal ? await memories.countKeywordMatches(actor.userId, base) : matches.length;
    }
    rows = matches.map((match) => {
      const scored: KeywordScore = keywordScore(query.concepts, query.corpus, match.searchTerms, match.tokenCount);
      if (input.explain) {
        const { bm25, coverage, proximity, matched } = scored;
        details.set(match.seq, { bm25, coverage, proximity, matched, ignored: plan.dropped });
      }
      return {
        seq: match.seq,
        projectName: match.projectName,
        priority: match.priority,
        recencyMs: match.recencyMs,
        bm25: scored.raw,
        pinned: match.pinned ?? false,
      };
    });
    if (near !== undefined) {
      const hybrid = await withVectors(rows, await near);
      rows = hybrid.rows;
      total += hybrid.added;
      vectors = hybrid.status;
    }
  } else {
    rows = await memories.contextCandidates(actor.userId, { ...filter, ...(scope && { scope }), limit: wanted });
    total = input.withTotal
      ? await memories.countContext(actor.userId, { ...filter, ...(scope && { scope }) })
      : rows.length;
  }

  const bestBm25 = rows.reduce((best, row) => Math.max(best, row.bm25), 0);
  const context = {
    project: input.project_name,
    nowMs: now.getTime(),
    bestBm25,
    ...(vectors !== undefined && { vectors }),
  };
  const ranked = rows
    .map((row) => ({ row, ...scoreOf(row, context, ranking, details.get(row.seq)) }))
    .sort(compareRanked)
    .slice(input.offset, wanted);
  const records = new Map(
    (
      await memories.findBySeq(
        actor.userId,
        ranked.map((r) => r.row.seq),
      )
    ).map((r) => [r.seq, r]),
  );
  // A memory deleted between ranking and reading is simply left out.
  const hits = ranked.flatMap((entry) => {
    const record = records.get(entry.row.seq);
    return record ? [{ ...entry, record }] : [];
  });
  touch(
    access,
    hits.map((hit) => hit.record),
    now,
  );
  const page: RankedMemory[] = hits.map(({ record, score, parts }) => ({
    ...toMemory(record),
    score,
    ...(input.explain && { score_parts: parts }),
  }));
  return { memories: page, total: Math.max(total, input.offset + page.length) };
}
