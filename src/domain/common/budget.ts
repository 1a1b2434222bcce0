import { BUDGET_DEFAULT_CHARS, BUDGET_MAX_CHARS, BUDGET_MIN_CHARS, CURSOR_MAX } from '../../contract/index.js';
import { ValidationError } from './errors.js';

/**
 * Result budgets (docs/api.md, "Budgets"). An answer with a budget is at most `max_chars` characters of JSON
 * text — the string a client receives, counted in UTF-16 code units (JavaScript's `length`; a character
 * outside the Basic Multilingual Plane counts two), escapes included. It never fails for its size: items that
 * do not fit whole come back as previews (their long texts cut, `truncated: true`), those that do not fit at
 * all are left for the next page, and `next_cursor` says where that page starts.
 */
export { BUDGET_DEFAULT_CHARS, BUDGET_MAX_CHARS, BUDGET_MIN_CHARS };

/** The domain's own check of a budget, whoever sent it (the schemas say the same). */
export function checkBudget(maxChars: number | undefined): void {
  if (maxChars === undefined) return;
  if (!Number.isInteger(maxChars) || maxChars < BUDGET_MIN_CHARS || maxChars > BUDGET_MAX_CHARS) {
    throw new ValidationError({ max_chars: `max_chars must be between ${BUDGET_MIN_CHARS} and ${BUDGET_MAX_CHARS}` });
  }
}

/** Ends every cut text, so that a preview never reads as the whole. */
export const PREVIEW_MARKER = '…';

/**
 * The shortest preview a list prefers: when not every item fits at this length, fewer items are shown (the
 * rest are on the next page) rather than shorter previews. Below it only when a single item is left.
 */
export const PREVIEW_FLOOR = 200;

/** Characters of `value` as JSON text: what the budget counts. */
export const jsonLength = (value: unknown): number => JSON.stringify(value).length;

const partLengths = new WeakMap<object, number>();

/**
 * `jsonLength` of a part of an item (its metadata, labels, variable schema), remembered per object: a preview
 * asks for the same parts at every cut the fitting tries. Parts are never changed once presented.
 */
export function partLength(value: object): number {
  let length = partLengths.get(value);
  if (length === undefined) {
    length = jsonLength(value);
    partLengths.set(value, length);
  }
  return length;
}

/**
 * `text` cut to its first `max` characters followed by PREVIEW_MARKER, or `text` itself when it is no longer
 * than `max`. Never cuts between the two halves of a surrogate pair (the cut moves one character back), so a
 * preview is always valid Unicode.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${PREVIEW_MARKER}`;
}

/** The leading elements of `items` whose JSON array fits in `room` characters (brackets and commas included). */
export function leadingFitting<T>(items: readonly T[], room: number): T[] {
  let used = 2;
  let count = 0;
  for (const item of items) {
    const size = jsonLength(item) + (count > 0 ? 1 : 0);
    if (used + size > room) break;
    used += size;
    count++;
  }
  return count === items.length ? (items as T[]) : items.slice(0, count);
}

/** How one kind of list item shrinks. */
export interface PreviewShape<T> {
  /**
   * The length of the item's longest cuttable part: a cut at least this long changes nothing. Never more than
   * the item's own JSON length (it is one of its parts), so extents also tell cheaply that items cannot fit.
   */
  extent(item: T): number;
  /**
   * The item with every cuttable part at most `cut` characters (texts via `cutText`, lists and objects
   * shortened or reduced) and `truncated: true`. At `cut` 0 it is the item's minimal preview: its id and
   * identifying fields, whose size the contract's limits bound (so BUDGET_MIN_CHARS always holds one).
   */
  preview(item: T, cut: number): T;
}

/** Per-item sizes at a cut, cached: the fitting asks for the same ones repeatedly. */
class Sizer<T> {
  private readonly extents: number[];
  private readonly wholes: Array<number | undefined>;

  constructor(
    private readonly items: readonly T[],
    private readonly shape: PreviewShape<T>,
  ) {
    this.extents = items.map((item) => shape.extent(item));
    this.wholes = new Array(items.length);
  }

  whole(i: number): number {
    let size = this.wholes[i];
    if (size === undefined) {
      size = jsonLength(this.items[i]);
      this.wholes[i] = size;
    }
    return size;
  }

  /** Item `i` as shown at `cut`: whole when nothing of it is longer, else its preview. */
  at(i: number, cut: number): { item: T; size: number } {
    const item = this.items[i] as T;
    if (cut >= (this.extents[i] as number)) return { item, size: this.whole(i) };
    const preview = this.shape.preview(item, cut);
    return { item: preview, size: jsonLength(preview) };
  }

  /** Characters of the first `count` items at `cut` with the commas between them, or Infinity past `room`. */
  total(count: number, cut: number, room: number): number {
    let used = count > 0 ? count - 1 : 0;
    for (let i = 0; i < count; i++) {
      used += this.at(i, cut).size;
      if (used > room) return Number.POSITIVE_INFINITY;
    }
    return used;
  }

  /** A lower bound of the items' whole size: the sum of their extents. */
  atLeast(): number {
    let sum = 0;
    for (const extent of this.extents) sum += extent;
    return sum;
  }

  longest(count: number): number {
    let longest = 0;
    for (let i = 0; i < count; i++) longest = Math.max(longest, this.extents[i] as number);
    return longest;
  }
}

/**
 * The largest cut in [low, high] at which `fits` holds, given that it holds at `low` (binary search), to within
 * 1/32 of it: each try measures up to the whole room, and a preview 3 % shorter than it could be costs the
 * reader little, where the last few halvings would cost as much as the first ones.
 */
function largestCut(low: number, high: number, fits: (cut: number) => boolean): number {
  let lo = low;
  let hi = high;
  while (hi - lo > Math.max(1, lo >> 5)) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Which of `items` (in order) fill `room` characters of JSON — the items and the commas between them — and
 * how, deterministically:
 * 1. everything whole, when it fits;
 * 2. otherwise the most leading items that fit with every long part cut at PREVIEW_FLOOR, then one cut for
 *    all of them, the longest that fits (water-filling: short items stay whole and leave their room to the
 *    long ones);
 * 3. when not even the first item fits at the floor: with `atLeastOne` (lists, which must move forward), that
 *    item alone, cut as long as fits — down to its minimal preview — and otherwise nothing.
 */
export function fitItems<T>(items: readonly T[], room: number, shape: PreviewShape<T>, atLeastOne: boolean): T[] {
  if (items.length === 0) return [];
  const sizer = new Sizer(items, shape);
  if (sizer.atLeast() <= room) {
    let whole = items.length - 1;
    for (let i = 0; i < items.length && whole <= room; i++) whole += sizer.whole(i);
    if (whole <= room) return items.slice();
  }

  let count = 0;
  let used = -1;
  while (count < items.length) {
    const size = sizer.at(count, PREVIEW_FLOOR).size + 1;
    if (used + size > room) break;
    used += size;
    count++;
  }
  if (count === 0) {
    if (!atLeastOne) return [];
    const cut = sizer.at(0, 0).size <= room ? largestCut(0, PREVIEW_FLOOR - 1, (c) => sizer.at(0, c).size <= room) : 0;
    return [sizer.at(0, cut).item];
  }
  const cut = largestCut(PREVIEW_FLOOR, Math.max(PREVIEW_FLOOR, sizer.longest(count)), (c) =>
    Number.isFinite(sizer.total(count, c, room)),
  );
  return Array.from({ length: count }, (_, i) => sizer.at(i, cut).item);
}

/** A cursor that is at least as long as any real one: the envelope is measured with it. */
const WIDEST_CURSOR = String(CURSOR_MAX);
/** Room for envelope fields whose digits grow with the items shown (`count`). */
const ENVELOPE_SLACK = 8;

export interface BudgetedPageInput<T, A> {
  /** The page's candidates, in list order. */
  items: readonly T[];
  /** The list position of the first candidate. */
  offset: number;
  /** Whether the list holds items after the candidates. */
  more: boolean;
  /** The budget; undefined: every candidate, whole. */
  maxChars: number | undefined;
  shape: PreviewShape<T>;
  /** The furthest position a cursor may point to (ranked search stops at its depth); default CURSOR_MAX. */
  reach?: number;
  /** The whole answer around the chosen items. */
  answer(items: T[], nextCursor: string | null): A;
}

/**
 * One page of a list within its budget: the answer built around the items that fit, and `next_cursor` at the
 * first item not shown — one cut short by the budget continues exactly where it stopped, so following
 * cursors shows every item once. The envelope (the answer without items) is measured with the widest cursor;
 * a last check rebuilds with one item fewer should anything still be over (it never is for the answers built
 * here; the property tests hold it), keeping at least one item so that a list always moves forward.
 */
export function budgetedPage<T, A>(input: BudgetedPageInput<T, A>): { answer: A; shown: number } {
  const { items, offset, more, maxChars, shape, answer } = input;
  const reach = Math.min(input.reach ?? CURSOR_MAX, CURSOR_MAX);
  const cursorAfter = (shown: number) =>
    (shown < items.length || more) && offset + shown <= reach ? String(offset + shown) : null;
  if (maxChars === undefined) return { answer: answer(items.slice(), cursorAfter(items.length)), shown: items.length };

  const room = maxChars - jsonLength(answer([], WIDEST_CURSOR)) - ENVELOPE_SLACK;
  let chosen = fitItems(items, room, shape, true);
  let built = answer(chosen, cursorAfter(chosen.length));
  while (chosen.length > 1 && jsonLength(built) > maxChars) {
    chosen = fitItems(items.slice(0, chosen.length - 1), room, shape, true);
    built = answer(chosen, cursorAfter(chosen.length));
  }
  return { answer: built, shown: chosen.length };
}
