import { analyze } from './analyzer.js';
import type { CorpusStatistics, ScoredConcept, WeightedTerm } from './keyword-score.js';
import type { MemoryStore } from './memory-store.js';
import type { MatchKind, QueryPlan } from './query-analysis.js';

/**
 * Turns a query plan into weighted index terms with the searching user's statistics, adding the
 * alternatives that need the user's vocabulary (docs/memory-search.md, *Query analysis*):
 *
 * - prefix: a word the user's memories do not hold is taken as the start of longer words ("kube" →
 *   kubernetes, "idempot" → idempotency); the prefix is where the typed word and its stem agree, at least
 *   PREFIX_MIN characters; the PREFIX_TERMS most frequent completions among the first PREFIX_SCAN are taken.
 * - typo: a word found nowhere in the user's memories (no term of it is known) is compared with every
 *   spelling one edit away (a letter left out, added, changed, or two swapped); the TYPO_TERMS most frequent
 *   that exist are taken. Only for TYPO_WORDS such words of TYPO_MIN–TYPO_MAX letters a search.
 *
 * Every bound is per search, so the work is bounded whatever the string or the vocabulary: at most
 * SEARCH_MAX_WORDS concepts, PREFIX_CONCEPTS prefix look-ups, TYPO_WORDS × (54 × TYPO_MAX + 26) spellings,
 * MAX_TERMS terms in the index query.
 */
export const PREFIX_MIN = 4;
export const PREFIX_TERMS = 4;
export const PREFIX_SCAN = 64;
export const PREFIX_CONCEPTS = 8;
export const TYPO_MIN = 4;
export const TYPO_MAX = 20;
export const TYPO_WORDS = 3;
export const TYPO_TERMS = 2;
export const MAX_TERMS = 64;

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const ASCII_LETTERS = /^[a-z]+$/;

/** Every spelling one edit (Damerau–Levenshtein) from `word`, over a–z. */
export function editsOf(word: string): Set<string> {
  const edits = new Set<string>();
  for (let i = 0; i <= word.length; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    if (tail.length > 0) edits.add(head + tail.slice(1));
    if (tail.length > 1) edits.add(head + (tail[1] as string) + (tail[0] as string) + tail.slice(2));
    for (const letter of LETTERS) {
      if (tail.length > 0) edits.add(head + letter + tail.slice(1));
      edits.add(head + letter + tail);
    }
  }
  edits.delete(word);
  return edits;
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

export interface ResolvedQuery {
  concepts: ScoredConcept[];
  corpus: CorpusStatistics;
  /** Distinct index terms to find candidates with (at most MAX_TERMS), the stems first. */
  terms: string[];
}

type Store = Pick<MemoryStore, 'termStatistics' | 'termsWithPrefix'>;

export async function resolveQuery(store: Store, userId: string, plan: QueryPlan): Promise<ResolvedQuery> {
  const concepts = plan.concepts.map((concept) => ({
    word: concept.word,
    stem: concept.stem,
    found: new Map<string, MatchKind>([
      [concept.stem, 'exact'],
      ...concept.alternatives.map((a): [string, MatchKind] => [a.term, a.kind]),
    ]),
  }));
  const documents = new Map<string, number>();
  const known = [...new Set(concepts.flatMap((c) => [...c.found.keys()]))];
  const stats = await store.termStatistics(userId, known);
  for (const [i, term] of known.entries()) documents.set(term, stats.frequencies[i] ?? 0);

  const prefixed = await Promise.all(
    concepts.map((concept, i) => {
      const prefix = commonPrefix(concept.word, concept.stem);
      if (i >= PREFIX_CONCEPTS || prefix.length < PREFIX_MIN) return [];
      // Only for words the user never wrote (a partial word): a known word's completions are mostly other
      // words ("roll" → "rollout"), and the look-up would cost every search of a common word.
      if ((documents.get(concept.stem) ?? 0) > 0) return [];
      return store.termsWithPrefix(userId, prefix, PREFIX_TERMS, PREFIX_SCAN);
    }),
  );
  for (const [i, completions] of prefixed.entries()) {
    const concept = concepts[i];
    if (!concept) continue;
    for (const { term, documents: count } of completions) {
      if (!concept.found.has(term)) concept.found.set(term, 'prefix');
      documents.set(term, count);
    }
  }

  const unknown = concepts
    .filter((c) => [...c.found.keys()].every((term) => (documents.get(term) ?? 0) === 0))
    .filter((c) => ASCII_LETTERS.test(c.word) && c.word.length >= TYPO_MIN && c.word.length <= TYPO_MAX)
    .slice(0, TYPO_WORDS);
  if (unknown.length > 0) {
    const spellings = unknown.map((c) => {
      const stems = new Set<string>();
      for (const edit of editsOf(c.word)) {
        const stem = analyze(edit)[0];
        if (stem !== undefined && !c.found.has(stem)) stems.add(stem);
      }
      return [...stems];
    });
    const all = [...new Set(spellings.flat())];
    const found = await store.termStatistics(userId, all);
    const count = new Map(all.map((term, i) => [term, found.frequencies[i] ?? 0]));
    for (const [i, concept] of unknown.entries()) {
      const corrections = (spellings[i] ?? [])
        .filter((term) => (count.get(term) ?? 0) > 0)
        .sort((a, b) => (count.get(b) ?? 0) - (count.get(a) ?? 0) || (a < b ? -1 : 1))
        .slice(0, TYPO_TERMS);
      for (const term of corrections) {
        concept.found.set(term, 'typo');
        documents.set(term, count.get(term) ?? 0);
      }
    }
  }

  const scored: ScoredConcept[] = concepts.map((concept) => ({
    word: concept.word,
    terms: [...concept.found].map(
      ([term, kind]): WeightedTerm => ({ term, kind, documents: documents.get(term) ?? 0 }),
    ),
  }));
  // Stems always (a count may be a minute old); other terms only where the user has them; most useful first.
  const order: MatchKind[] = ['exact', 'joined', 'synonym', 'typo', 'prefix'];
  const terms = [
    ...new Set(
      order.flatMap((kind) =>
        scored.flatMap((c) =>
          c.terms.filter((t) => t.kind === kind && (kind === 'exact' || t.documents > 0)).map((t) => t.term),
        ),
      ),
    ),
  ].slice(0, MAX_TERMS);
  return { concepts: scored, corpus: { documents: stats.documents, averageLength: stats.averageLength }, terms };
}
