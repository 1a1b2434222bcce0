/** The made-up words of the memory search benchmark (bench/search.ts), shared with bench/search-results.ts. */
export const COMMON = ['code', 'use', 'team', 'project', 'should', 'always', 'review', 'test'];
const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tor', 'vek', 'sul', 'dra', 'pen', 'qui', 'zor', 'bal', 'nex', 'fi', 'gor'];
/** Syllable words; bench/search.ts draws low indexes often and the tail rarely. */
export const VOCABULARY = Array.from({ length: 6000 }, (_, i) => {
  let word = '';
  let n = i + 7;
  do {
    word += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  } while (n > 0);
  return word;
});
