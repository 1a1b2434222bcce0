import { analyze } from './analyzer.js';

/**
 * Query analysis for memory search (docs/memory-search.md, *Query analysis*): which of the search's words
 * carry meaning, and which index terms stand for each of them. Pure and bounded: at most SEARCH_MAX_WORDS
 * words come in (search-words.ts), each gives a fixed number of alternatives.
 *
 * - Question and filler words ("how", "do", "we", "the", "should") are dropped, unless nothing else is left.
 *   Words that change meaning in technical text are kept ("not", "back", "up", "down", "off", "all").
 * - Each remaining word is a *concept*; its index terms are its stem (analyzer.ts) and alternatives:
 *   the word joined with its neighbour ("roll back" → "rollback", "on call" → "oncall") and synonyms from a
 *   small built-in thesaurus of software-engineering terms. Prefix and typo alternatives need the user's
 *   vocabulary and are added by term-expansion.ts.
 */

/** How an index term came to stand for a query word; each kind has a weight (keyword-score.ts, KEYWORD_TUNING). */
export type MatchKind = 'exact' | 'joined' | 'synonym' | 'prefix' | 'typo';

export interface Alternative {
  term: string;
  kind: MatchKind;
}

export interface Concept {
  /** The word as typed (lowercased). */
  word: string;
  /** Its index term (stem). */
  stem: string;
  /** Other index terms that stand for it, never repeating the stem. */
  alternatives: Alternative[];
}

export interface QueryPlan {
  concepts: Concept[];
  /** Words left out as question or filler words (shown by explain). */
  dropped: string[];
}

const STOP_WORDS = new Set(
  `a an the and or but if then else of to in on at by for with from into onto about as than
  is are was were be been being am do does did doing done have has had having
  i me my mine myself we us our ours you your yours he him his she her it its they them their
  this that these those there here what which who whom whose when where why how
  can could should would will shall may might must
  please so some any just also too very really s t d ll ve re m
  tell show explain know find give want like way ways thing things something anything`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Groups of words and phrases that mean the same in everyday engineering language. Matched on stems, so
 * each entry covers its word forms. A phrase stands for the concept only as a whole (every word of it in
 * the query) and is matched as its joined form and as adjacent words.
 */
const THESAURUS: readonly (readonly string[])[] = [
  ['rollback', 'revert', 'undo', 'roll back'],
  ['deploy', 'release', 'rollout', 'ship'],
  ['delete', 'remove', 'erase', 'purge', 'wipe'],
  ['bug', 'defect', 'fault'],
  ['error', 'exception', 'failure'],
  ['outage', 'incident', 'downtime'],
  ['database', 'db'],
  ['kubernetes', 'k8s'],
  ['authentication', 'auth', 'login', 'sign in'],
  ['authorization', 'permission', 'access'],
  ['configuration', 'config'],
  ['secret', 'credential', 'password'],
  ['environment', 'env'],
  ['repository', 'repo'],
  ['documentation', 'docs'],
  ['performance', 'perf', 'latency', 'slow'],
  ['cost', 'spend', 'bill', 'budget'],
  ['duplicate', 'twice', 'dedupe', 'repeated'],
  ['approval', 'approve', 'sign off'],
  ['restart', 'reboot'],
  ['crash', 'crashloop'],
  ['accessibility', 'a11y', 'voiceover', 'talkback', 'screen reader', 'blind'],
  ['translation', 'localization', 'i18n', 'l10n'],
  ['limit', 'cap', 'quota', 'throttle'],
  ['stop', 'halt', 'pause'],
  ['keep', 'retain', 'retention', 'store'],
  ['schedule', 'cron'],
  ['notification', 'push'],
  ['test', 'spec'],
  ['setup', 'install', 'bootstrap', 'set up'],
  ['upgrade', 'update', 'bump'],
  ['shutdown', 'terminate', 'sigterm', 'shut down'],
  ['health', 'liveness', 'readiness', 'probe'],
  ['wrong', 'incorrect', 'off'],
  ['iphone', 'ios'],
  ['phone', 'mobile', 'device'],
  ['customer', 'user', 'client'],
  ['owner', 'maintainer', 'lead'],
  ['personal data', 'pii', 'gdpr'],
  ['callback', 'webhook'],
  ['refund', 'reimburse'],
  ['money', 'amount', 'currency'],
  ['alert', 'alarm', 'page'],
  ['log', 'logging'],
  ['metric', 'measurement'],
  ['big', 'large', 'huge'],
  ['small', 'tiny'],
  ['fast', 'quick'],
  ['flaky', 'flakiness', 'intermittent'],
  ['lint', 'linter', 'style', 'format'],
];

/** Synonyms per stem: for each entry of a group, the other entries (single words as stems, phrases joined). */
const SYNONYMS: ReadonlyMap<string, string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const group of THESAURUS) {
    const terms = group.map((entry) => analyze(entry).join(''));
    for (const [i, entry] of group.entries()) {
      if (entry.includes(' ')) continue; // phrases are found through the joined form of adjacent words
      const stem = terms[i] as string;
      const set = map.get(stem) ?? new Set<string>();
      for (const other of terms) if (other !== stem) set.add(other);
      map.set(stem, set);
    }
  }
  return new Map([...map].map(([stem, set]) => [stem, [...set]]));
})();

/**
 * The synonyms of a stem (as index terms). Porter turns a final y into i in some forms only ("deploy" →
 * "deploi", "deployment" → "deploy"), so both spellings find the group.
 */
export const synonymsOf = (stem: string): readonly string[] =>
  SYNONYMS.get(stem) ?? SYNONYMS.get(stem.replace(/y$/, 'i')) ?? SYNONYMS.get(stem.replace(/i$/, 'y')) ?? [];

/** Short words written as one elsewhere ("roll back" / "rollback", "on call" / "oncall"). */
const JOINABLE = 8;
const joined = (first: string, second: string) =>
  first.length <= JOINABLE && second.length <= JOINABLE ? analyze(first + second)[0] : undefined;

/**
 * The query plan for a search's words (distinct, lowercased, from searchWords). Words are analysed one by
 * one; a word the analyzer splits no further stays one concept.
 */
export function planQuery(words: readonly string[]): QueryPlan {
  const meaningful = words.filter((word) => !STOP_WORDS.has(word) && !/^\p{L}$/u.test(word));
  const kept = meaningful.length > 0 ? meaningful : [...words];
  const dropped = words.filter((word) => !kept.includes(word));
  const concepts: Concept[] = [];
  const seen = new Set<string>();
  for (const word of kept) {
    const stem = analyze(word)[0];
    if (stem === undefined || seen.has(stem)) continue;
    seen.add(stem);
    concepts.push({ word, stem, alternatives: [] });
  }
  for (const [i, concept] of concepts.entries()) {
    const add = (term: string, kind: MatchKind) => {
      if (term !== concept.stem && !concept.alternatives.some((a) => a.term === term)) {
        concept.alternatives.push({ term, kind });
      }
    };
    // Neighbours joined, as written in one word elsewhere ("roll back" / "rollback").
    const before = concepts[i - 1];
    const after = concepts[i + 1];
    const joins = [before && joined(before.word, concept.word), after && joined(concept.word, after.word)];
    for (const term of joins) if (term) add(term, 'joined');
    // Porter turns a final y into i in some forms only ("deploy" → "deploi", "deployment" → "deploy").
    if (/^[a-z]{3,}i$/.test(concept.stem)) add(`${concept.stem.slice(0, -1)}y`, 'exact');
    if (/^[a-z]{3,}y$/.test(concept.stem)) add(`${concept.stem.slice(0, -1)}i`, 'exact');
    for (const synonym of synonymsOf(concept.stem)) add(synonym, 'synonym');
  }
  return { concepts, dropped };
}
