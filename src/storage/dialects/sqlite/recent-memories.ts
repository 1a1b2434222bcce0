import type { Kysely } from 'kysely';
import type { NearDuplicateCandidate, NearDuplicateQuery } from '../../../domain/memories/memory-store.js';
import { readCount } from '../../codec.js';
import { precompileStatement } from '../../precompiled.js';
import type { Schema } from '../../schema.js';
import type { InsertedMemory } from '../sql-dialect.js';

/**
 * The near-duplicate check's candidates from memory (SQLite; issue 15, docs/performance.md, session 14).
 *
 * A default create asks for the 20 most recent memories of its project, visible now, that hold any of up to
 * 8 of its words (domain/memories/dedupe.ts). FTS5 answers that with a lookup of each word in each segment
 * of the index and a walk of each word's list newest first: 0.5–0.9 ms at 200,000 memories, most of a
 * create's cost. Here each project's newest memories (their analysed words, visibility and id) are kept in
 * memory and scanned newest first: the first `limit` holding a word are the answer, exactly, because
 * every newer memory of the project is in the window. A window holding the whole project answers whatever
 * it finds. Otherwise the window grows by reading older memories (up to `maxEntries`); past that the caller
 * asks FTS5.
 *
 * **Never stale.** A window is trusted only while the user's stamp (`memory_stamps`, migration 0022) is the
 * one it was read at. Triggers replace the stamp with a random value at every change of the user's memories
 * — by this process, another instance or an operator's command — so a window is checked with one
 * primary-key read per create. An insert by this process moves the windows along inside its transaction
 * (`inserted`): when the stamp before the insert (`previous`) is a window's, the insert was the only change
 * since, and the window takes the new memory and the new stamp. If that transaction then rolls back, the
 * stamp goes back to one no window holds. Any other change (an update, a delete, another process's write)
 * leaves the window behind; the next check reads it again.
 *
 * Rows are read with the stamp they are labelled with (one statement, one snapshot), or after it, so a
 * window may hold data newer than its stamp (then the stamp has moved on too, and the window is read
 * again) but never older. A create's check runs inside the create's transaction (storage/memory-store.ts,
 * `insertChecked`): on SQLite a member of a group transaction, it sees the committed rows and those of the
 * group's earlier members, which commit or fail with it; a window read or moved along there is labelled
 * with a stamp that a rolled-back group takes away again.
 *
 * **Bounded.** Each window holds at most `maxEntries` memories and all windows an estimated
 * `maxBytes` of heap (the least recently used windows go first). Two back-offs keep the window from
 * costing more than it saves: a window thrown away before it paid for its reading (updates between
 * creates), or one that keeps failing to find enough matches (a project whose new memories' words are
 * rarer than the window is deep), sends the next checks of its project straight to FTS5 (1, 2, 4 … 64 of
 * them).
 */

export interface RecentLimits {
  /** Memories read into a new window; each time it has to grow, as many again as it holds. */
  firstRead: number;
  /** The most memories a window holds: deeper than this, FTS5 answers. */
  maxEntries: number;
  /** The oldest memories past `maxEntries` are dropped this many at a time (each drop moves the window). */
  trimStep: number;
  /** Heap all windows may take together, estimated (entryBytes); the least recently used go first. */
  maxBytes: number;
}

/**
 * The heap a memory held is estimated to take: its analysed text (one byte a character for most text, and
 * as much again for the words the check remembers of a candidate: domain/memories/dedupe.ts) and
 * ENTRY_BYTES for the entry, its Bloom filter and those words' strings and array.
 */
const ENTRY_BYTES = 1_000;
const entryBytes = (entry: Entry) => ENTRY_BYTES + 2 * entry.searchTerms.length;

export const RECENT_LIMITS: RecentLimits = {
  firstRead: 128,
  maxEntries: 1_024,
  trimStep: 256,
  // 20 windows of 1,024 memories of 200 characters: what the benchmark's 20 projects take.
  maxBytes: 32 * 1024 * 1024,
};
/** Hits below which a window thrown away had not paid for its reading: the project backs off. */
const PAID_HITS = 8;
const MAX_BACKOFF = 64;
/**
 * Characters one check may string-search (the memories whose Bloom filter let a word through). Short
 * memories take ~100 searches of ~200 characters a check; long ones (up to 50,000 characters, whose filters
 * let every word through) would take the scan to hundreds of milliseconds inside the create's transaction,
 * where every other write waits: past this, FTS5 answers, whose cost does not grow with the texts.
 */
const MAX_SEARCHED_CHARS = 262_144;

/**
 * A Bloom filter of 1,024 bits (32 integers, two cache lines) per memory, two bits per word: a memory of 32
 * distinct words sets about 6% of them, so a word it lacks passes the filter once in ~300 memories. What
 * passes costs a string search of the memory's words (the filter only says "maybe"), which is what the
 * scan spends most of its time on; a second bit per word costs one more read of a line already loaded.
 */
const BLOOM_WORDS = 32;

/** A memory held: what the check answers with (its id always at hand), and its visibility. */
interface Entry extends NearDuplicateCandidate {
  id: string;
  visibleUntil: string | null;
}

/** FNV-1a over UTF-16 code units, 32 bits. */
function wordHash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A word's two bits, each as (integer index, mask), written into `into` at `at`. */
function bloomBits(word: string, into: Int32Array, at: number): void {
  const h = wordHash(word);
  const g = Math.imul(h, 0x9e3779b1) >>> 0;
  into[at] = (h >>> 5) % BLOOM_WORDS;
  into[at + 1] = 1 << (h & 31);
  into[at + 2] = (g >>> 5) % BLOOM_WORDS;
  into[at + 3] = 1 << (g & 31);
}

const scratch = new Int32Array(4);

/** A Bloom filter of a memory's words, written into `into` at `at` (BLOOM_WORDS long). */
function bloomOf(searchTerms: string, into: Int32Array, at: number): void {
  into.fill(0, at, at + BLOOM_WORDS);
  let start = 1;
  // ` tok tok `: every word is between two spaces.
  for (let end = searchTerms.indexOf(' ', start); end !== -1; end = searchTerms.indexOf(' ', start)) {
    if (end > start) {
      bloomBits(searchTerms.slice(start, end), scratch, 0);
      const i = at + (scratch[0] as number);
      into[i] = (into[i] as number) | (scratch[1] as number);
      const j = at + (scratch[2] as number);
      into[j] = (into[j] as number) | (scratch[3] as number);
    }
    start = end + 1;
  }
}

/**
 * One project's newest memories, oldest first in `entries`, with each one's Bloom filter at the same
 * index in `blooms` (one flat array: the scan reads it without touching the entries it skips).
 */
class RecentWindow {
  entries: Entry[] = [];
  blooms = new Int32Array(BLOOM_WORDS * 64);
  /** The window holds every memory of its project (a read found fewer rows than it asked for). */
  complete = false;
  /** Checks answered since it was read. */
  hits = 0;
  /** Heap held, estimated (entryBytes). */
  bytes = 0;

  /** `stamp`: the user's stamp this window is current at. */
  constructor(
    public stamp: number,
    private readonly limits: RecentLimits,
  ) {}

  get length(): number {
    return this.entries.length;
  }

  /** The oldest memory held. */
  get oldest(): Entry | undefined {
    return this.entries[0];
  }

  addNewest(entry: Entry, bloom: Int32Array): void {
    const at = this.entries.length * BLOOM_WORDS;
    if (at + BLOOM_WORDS > this.blooms.length) this.grow(this.entries.length + 1);
    this.blooms.set(bloom, at);
    this.entries.push(entry);
    this.bytes += entryBytes(entry);
    // Trimmed in steps, not at every insert: each trim moves the whole window.
    const { maxEntries, trimStep } = this.limits;
    if (this.entries.length >= maxEntries + trimStep) this.dropOldest(this.entries.length - maxEntries);
  }

  /** Memories older than every one held, newest first (as read). */
  addOlder(older: Entry[]): void {
    if (older.length === 0) return;
    const count = older.length;
    const blooms = new Int32Array(Math.max(this.blooms.length, (this.entries.length + count) * BLOOM_WORDS));
    blooms.set(this.blooms.subarray(0, this.entries.length * BLOOM_WORDS), count * BLOOM_WORDS);
    const entries = new Array<Entry>(count);
    for (let i = 0; i < count; i++) {
      const entry = older[count - 1 - i] as Entry;
      entries[i] = entry;
      bloomOf(entry.searchTerms, blooms, i * BLOOM_WORDS);
      this.bytes += entryBytes(entry);
    }
    this.blooms = blooms;
    this.entries = entries.concat(this.entries);
  }

  private grow(entries: number): void {
    const blooms = new Int32Array(Math.max(entries, this.entries.length * 2) * BLOOM_WORDS);
    blooms.set(this.blooms.subarray(0, this.entries.length * BLOOM_WORDS));
    this.blooms = blooms;
  }

  private dropOldest(count: number): void {
    for (const entry of this.entries.slice(0, count)) this.bytes -= entryBytes(entry);
    this.entries = this.entries.slice(count);
    this.blooms.copyWithin(0, count * BLOOM_WORDS, (this.entries.length + count) * BLOOM_WORDS);
    this.complete = false;
  }

  /**
   * Scans newest first, skipping the `skip` newest, adding the memories visible at `at` that hold any of
   * `needles` to `found` until it holds `limit`; returns how many of the newest it has scanned, or -1 when
   * the string searches would pass `budget.chars` (what is left of MAX_SEARCHED_CHARS).
   */
  scan(
    skip: number,
    needles: readonly string[],
    bits: Int32Array,
    at: string,
    limit: number,
    found: Entry[],
    budget: { chars: number },
  ): number {
    const { entries, blooms } = this;
    const words = needles.length;
    let index = entries.length - 1 - skip;
    for (; index >= 0 && found.length < limit; index--) {
      const base = index * BLOOM_WORDS;
      for (let k = 0; k < words; k++) {
        const b = k * 4;
        if (
          ((blooms[base + (bits[b] as number)] as number) & (bits[b + 1] as number)) === 0 ||
          ((blooms[base + (bits[b + 2] as number)] as number) & (bits[b + 3] as number)) === 0
        ) {
          continue;
        }
        // The filter says maybe: the entry itself decides (hidden, or the word really there).
        const entry = entries[index] as Entry;
        if (entry.visibleUntil !== null && entry.visibleUntil <= at) break;
        budget.chars -= entry.searchTerms.length;
        if (budget.chars < 0) return -1;
        if (entry.searchTerms.includes(needles[k] as string)) {
          found.push(entry);
          break;
        }
      }
    }
    return entries.length - 1 - index;
  }
}

interface ProjectState {
  window: RecentWindow | undefined;
  /** Checks left to send straight to FTS5, and the next back-off. */
  skip: number;
  backoff: number;
  /** Checks in a row the full window could not answer (its words are rarer than its depth). */
  misses: number;
}

interface UserState {
  /** By projectKey. */
  projects: Map<string, ProjectState>;
}

/** A window's key: its project, or "any project" (a global memory's check looks across all projects). */
const projectKey = (project: string | null): string => (project === null ? '*' : `p:${project}`);

function recentReads(db: Kysely<Schema>) {
  const columns = ['seq', 'id', 'project_name', 'visible_until', 'search_terms'] as const;
  const stampOf = (userId: string) =>
    db.selectFrom('memory_stamps').select('stamp').where('memory_stamps.user_id', '=', userId);
  // The user's stamp is read in the same statement as the rows, so both come from one snapshot.
  const older = (userId: string, before: number, limit: number) =>
    db
      .selectFrom('memories')
      .select(columns)
      .select(stampOf(userId).as('stamp'))
      .where('memories.user_id', '=', userId)
      .where('seq', '<', before)
      .orderBy('seq', 'desc')
      .limit(limit);
  return {
    stamp: precompileStatement(
      (userId: string) => db.selectFrom('memory_stamps').select(['stamp', 'previous']).where('user_id', '=', userId),
      1,
    ),
    // `memories (user_id, project_name)` and `memories (user_id)` hold the rowid: newest first, no sort.
    projectBefore: precompileStatement(
      (userId: string, project: string, before: number, limit: number) =>
        older(userId, before, limit).where('project_name', '=', project),
      4,
    ),
    anyBefore: precompileStatement(older, 3),
  };
}

interface Row {
  seq: unknown;
  id: string;
  project_name: string | null;
  visible_until: string | null;
  search_terms: string;
}

const toEntry = (row: Row): Entry => ({
  seq: readCount(row.seq),
  id: row.id,
  projectName: row.project_name,
  visibleUntil: row.visible_until,
  searchTerms: row.search_terms,
});

export type RecentMemories = ReturnType<typeof createRecentMemories>;

export function createRecentMemories(db: Kysely<Schema>, limits: RecentLimits = RECENT_LIMITS) {
  // Compiled with `db`; each read runs on the executor its caller names (a transaction, or `db`).
  const reads = recentReads(db);
  const users = new Map<string, UserState>();
  /** Windows held, least recently used first, with their user. */
  const recentlyUsed = new Map<ProjectState, string>();
  let totalBytes = 0;

  /** Drops a window; one that had not paid for its reading makes its project back off. */
  function dropWindow(state: ProjectState): void {
    const window = state.window;
    if (window === undefined) return;
    totalBytes -= window.bytes;
    state.window = undefined;
    recentlyUsed.delete(state);
    if (window.hits >= PAID_HITS) {
      state.backoff = 0;
    } else {
      state.backoff = Math.min(MAX_BACKOFF, Math.max(1, state.backoff * 2));
      state.skip = state.backoff;
    }
  }

  function evict(): void {
    for (const [state, userId] of recentlyUsed) {
      if (totalBytes <= limits.maxBytes) return;
      if (state.window) totalBytes -= state.window.bytes;
      state.window = undefined;
      recentlyUsed.delete(state);
      const user = users.get(userId);
      if (user && [...user.projects.values()].every((other) => other.window === undefined)) users.delete(userId);
    }
  }

  /** A window was used or changed: it goes last in the eviction order. */
  function touch(state: ProjectState, userId: string): void {
    recentlyUsed.delete(state);
    recentlyUsed.set(state, userId);
  }

  /** The state of one project's window. */
  function stateOf(userId: string, key: string): ProjectState {
    let user = users.get(userId);
    if (user === undefined) {
      user = { projects: new Map() };
      users.set(userId, user);
    }
    let state = user.projects.get(key);
    if (state === undefined) {
      state = { window: undefined, skip: 0, backoff: 0, misses: 0 };
      user.projects.set(key, state);
    }
    return state;
  }

  /**
   * Up to `count` memories older than the window's oldest, with the user's stamp read in the same
   * statement; `complete` when there are no more.
   */
  async function readOlder(
    executor: Kysely<Schema>,
    userId: string,
    project: string | null,
    window: RecentWindow,
    count: number,
  ) {
    const before = window.oldest?.seq ?? Number.MAX_SAFE_INTEGER;
    const rows =
      project === null
        ? await reads.anyBefore(executor, userId, before, count)
        : await reads.projectBefore(executor, userId, project, before, count);
    const stamp = rows[0]?.stamp;
    return {
      entries: rows.map(toEntry),
      /** The stamp the rows were read at (none when there were no rows). */
      stamp: stamp === undefined || stamp === null ? undefined : readCount(stamp),
      complete: rows.length < count,
    };
  }

  async function readStamp(executor: Kysely<Schema>, userId: string): Promise<number | undefined> {
    const [row] = await reads.stamp(executor, userId);
    return row === undefined ? undefined : readCount(row.stamp);
  }

  /**
   * A new window of the project's `limits.firstRead` newest memories, labelled with the stamp read with them (one
   * snapshot), or with `stamp`, read before, when there are none (older: at worst it is read again).
   */
  async function readWindow(
    executor: Kysely<Schema>,
    userId: string,
    project: string | null,
    stamp: number,
  ): Promise<RecentWindow> {
    const window = new RecentWindow(stamp, limits);
    const older = await readOlder(executor, userId, project, window, limits.firstRead);
    if (older.stamp !== undefined) window.stamp = older.stamp;
    window.addOlder(older.entries);
    window.complete = older.complete;
    return window;
  }

  return {
    /**
     * The `limit` most recent memories of the user (in `project`, or any project) visible at `visibleAt`
     * holding any of `terms`, newest first, as FTS5 would answer; `undefined` when the window cannot
     * answer exactly (the caller asks FTS5).
     */
    async candidates(
      executor: Kysely<Schema>,
      userId: string,
      query: NearDuplicateQuery,
    ): Promise<NearDuplicateCandidate[] | undefined> {
      if (query.terms.length === 0 || query.limit <= 0) return [];
      const state = stateOf(userId, projectKey(query.project));
      if (state.skip > 0) {
        state.skip--;
        return undefined;
      }
      let stamp = await readStamp(executor, userId);
      // An insert of another request may have moved the window past this reading while it was awaited:
      // a second reading (after that insert's group has committed) tells.
      if (stamp !== undefined && state.window !== undefined && state.window.stamp !== stamp) {
        stamp = await readStamp(executor, userId);
      }
      if (stamp === undefined) return undefined;
      if (state.window !== undefined && state.window.stamp !== stamp) dropWindow(state);
      let window = state.window;
      if (window === undefined) {
        const fresh = await readWindow(executor, userId, query.project, stamp);
        // Another check of the same project read one meanwhile: this one answers from FTS5.
        if (state.window !== undefined) return undefined;
        window = fresh;
        state.window = window;
        totalBytes += window.bytes;
        touch(state, userId);
      } else if (window.stamp !== stamp) {
        return undefined;
      }
      const needles = query.terms.map((term) => ` ${term} `);
      const bits = new Int32Array(query.terms.length * 4);
      for (const [i, term] of query.terms.entries()) bloomBits(term, bits, i * 4);
      const found: Entry[] = [];
      const budget = { chars: MAX_SEARCHED_CHARS };
      // Scanning a window that cannot answer (not deep enough, or too long to search), then asking FTS5,
      // costs more than asking FTS5 alone: after two such checks in a row the next ones (1, 2, 4 … 64) skip
      // the window.
      const giveUp = () => {
        state.misses++;
        if (state.misses >= 2) state.skip = Math.min(MAX_BACKOFF, 2 ** (state.misses - 2));
        return undefined;
      };
      let scanned = window.scan(0, needles, bits, query.visibleAt, query.limit, found, budget);
      while (scanned >= 0 && found.length < query.limit && !window.complete) {
        if (window.length >= limits.maxEntries) return giveUp();
        const labelled = window.stamp;
        const older = await readOlder(
          executor,
          userId,
          query.project,
          window,
          Math.max(1, Math.min(window.length, limits.maxEntries - window.length)),
        );
        // Another request's insert moved the window meanwhile (the scan's place is lost), or the rows are
        // of another state than the window's: FTS5 answers this one.
        if (state.window !== window || window.stamp !== labelled) return undefined;
        if (older.stamp !== undefined && older.stamp !== labelled) return undefined;
        const bytes = window.bytes;
        window.addOlder(older.entries);
        window.complete = older.complete;
        totalBytes += window.bytes - bytes;
        scanned = window.scan(scanned, needles, bits, query.visibleAt, query.limit, found, budget);
      }
      if (scanned < 0) return giveUp();
      window.hits++;
      state.misses = 0;
      if (state.window === window) touch(state, userId);
      evict();
      return found;
    },

    /**
     * A memory this process inserted, inside the insert's transaction (`trx`), right after its row: each of
     * the user's windows current at the stamp before it moves to the stamp after it, and the windows of the
     * memory's project and of any project take it; the others are dropped.
     */
    async inserted(trx: Kysely<Schema>, memory: InsertedMemory): Promise<void> {
      const user = users.get(memory.user_id);
      if (user === undefined) return;
      const [current] = await reads.stamp(trx, memory.user_id);
      const previous = current === undefined || current.previous === null ? undefined : readCount(current.previous);
      const own = projectKey(memory.project_name);
      const any = projectKey(null);
      let entry: Entry | undefined;
      const bloom = new Int32Array(BLOOM_WORDS);
      for (const [key, state] of user.projects) {
        const window = state.window;
        if (window === undefined) continue;
        if (current === undefined || previous === undefined || window.stamp !== previous) {
          dropWindow(state);
          continue;
        }
        window.stamp = readCount(current.stamp);
        if (key !== own && key !== any) continue;
        if (entry === undefined) {
          entry = toEntry(memory);
          bloomOf(entry.searchTerms, bloom, 0);
        }
        const bytes = window.bytes;
        window.addNewest(entry, bloom);
        totalBytes += window.bytes - bytes;
      }
      evict();
    },

    /** What is held (tests, operations). */
    get size() {
      let windows = 0;
      let entries = 0;
      for (const user of users.values()) {
        for (const state of user.projects.values()) {
          if (state.window === undefined) continue;
          windows++;
          entries += state.window.length;
        }
      }
      return { windows, entries, bytes: totalBytes };
    },
  };
}
