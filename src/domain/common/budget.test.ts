import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BUDGET_MAX_CHARS,
  BUDGET_MIN_CHARS,
  CURSOR_MAX,
  MAX_LABELS,
  MEMORY_TEXT_MAX,
  PROJECT_MAX,
} from '../../contract/index.js';
import { artifactListItemPreview } from '../artifacts/artifact-presenter.js';
import type { ArtifactListItem } from '../artifacts/artifact-schemas.js';
import { memoryPreview } from '../memories/memory-presenter.js';
import type { RankedMemory } from '../memories/memory-schemas.js';
import { promptIndexItemPreview, promptListItemPreview } from '../prompts/prompt-presenter.js';
import type { PromptIndexItem, PromptListItem } from '../prompts/prompt-schemas.js';
import {
  budgetedPage,
  checkBudget,
  cutText,
  fitItems,
  jsonLength,
  leadingFitting,
  PREVIEW_FLOOR,
  PREVIEW_MARKER,
  type PreviewShape,
} from './budget.js';
import { ValidationError } from './errors.js';

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Text with what makes JSON longer than the text (escapes) and what a cut must not split (surrogate pairs). */
const awkwardText = (maxLength: number) =>
  fc
    .array(
      fc.oneof(
        { weight: 6, arbitrary: fc.string({ maxLength: 40 }) },
        { weight: 2, arbitrary: fc.constantFrom('"', '\\', '\n', '\u0001', '\u2028', '😀', '𝄞', 'é') },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 4000 }).map((n) => 'x'.repeat(n)) },
      ),
      { maxLength: 200 },
    )
    .map((parts) => parts.join('').slice(0, maxLength));

const memoryArb = (i: number): fc.Arbitrary<RankedMemory> =>
  fc
    .record({
      text: fc.oneof(
        awkwardText(3000),
        fc.integer({ min: 0, max: MEMORY_TEXT_MAX }).map((n) => 'm'.repeat(n)),
      ),
      project: fc.option(fc.constantFrom('acme', 'acme/backend', 'a'.repeat(PROJECT_MAX)), { nil: null }),
      metadata: fc.oneof(
        fc.constant({}),
        fc.record({
          priority: fc.constantFrom('high', 'low'),
          tags: fc.array(fc.string({ maxLength: 50 }), { maxLength: 20 }),
        }),
        fc.string({ maxLength: 8000 }).map((note) => ({ category: 'notes', note })),
      ),
      score: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
    })
    .map(({ text, project, metadata, score }) => ({
      memory_id: `mem_${String(i).padStart(26, '0')}`,
      text: text.length > 0 ? text : 'x',
      project_name: project,
      metadata,
      created_at: '2026-11-21T10:00:00.000Z',
      updated_at: '2026-11-21T10:00:00.000Z',
      last_accessed_at: null,
      expires_at: null,
      pinned: false,
      superseded_by: null,
      ...(score !== undefined && { score }),
    }));

const memoriesArb = (max: number) =>
  fc.integer({ min: 0, max }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => memoryArb(i))));

/** The REST list answer around a page, as the memory service builds it. */
const restAnswer = (total: number) => (memories: RankedMemory[], next_cursor: string | null) => ({
  memories,
  total,
  page: 1,
  per_page: 100,
  next_cursor,
});

/** A shown item is its candidate whole, or a preview of it: same id, texts a prefix plus the marker. */
function expectWholeOrPreview(shown: RankedMemory, original: RankedMemory) {
  expect(shown.memory_id).toBe(original.memory_id);
  if (shown.truncated === undefined) {
    expect(shown).toEqual(original);
    return;
  }
  expect(shown.truncated).toBe(true);
  if (shown.text !== original.text) {
    expect(shown.text.endsWith(PREVIEW_MARKER)).toBe(true);
    const kept = shown.text.slice(0, -PREVIEW_MARKER.length);
    expect(original.text.startsWith(kept)).toBe(true);
    expect(kept.length).toBeLessThan(original.text.length);
    if (kept.length > 0) expect(isHighSurrogate(kept.charCodeAt(kept.length - 1))).toBe(false);
  }
}

describe('cutText', () => {
  it('keeps a prefix, adds the marker only when it cuts, and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(awkwardText(500), fc.integer({ min: 0, max: 600 }), (text, max) => {
        const cut = cutText(text, max);
        if (text.length <= max) {
          expect(cut).toBe(text);
          return;
        }
        expect(cut.endsWith(PREVIEW_MARKER)).toBe(true);
        const kept = cut.slice(0, -PREVIEW_MARKER.length);
        expect(text.startsWith(kept)).toBe(true);
        expect(kept.length).toBeLessThanOrEqual(max);
        expect(kept.length).toBeGreaterThanOrEqual(max - 1);
        if (kept.length > 0) expect(isHighSurrogate(kept.charCodeAt(kept.length - 1))).toBe(false);
        // Valid Unicode all the way: a lone surrogate would not survive a UTF-8 round trip.
        expect(Buffer.from(kept, 'utf8').toString('utf8')).toBe(kept);
      }),
    );
  });

  it('moves the cut back before a pair it would split', () => {
    expect(cutText('ab😀cd', 3)).toBe(`ab${PREVIEW_MARKER}`);
    expect(cutText('ab😀cd', 4)).toBe(`ab😀${PREVIEW_MARKER}`);
    expect(cutText('😀', 1)).toBe(PREVIEW_MARKER);
  });
});

describe('leadingFitting', () => {
  it('keeps the leading elements whose JSON array fits', () => {
    expect(leadingFitting(['aa', 'bb', 'cc'], 12)).toEqual(['aa', 'bb']);
    expect(leadingFitting(['aa', 'bb', 'cc'], 16)).toEqual(['aa', 'bb', 'cc']);
    expect(leadingFitting(['aa'], 3)).toEqual([]);
    fc.assert(
      fc.property(fc.array(fc.string()), fc.nat(300), (items, room) => {
        const kept = leadingFitting(items, room);
        expect(items.slice(0, kept.length)).toEqual(kept);
        if (kept.length > 0) expect(jsonLength(kept)).toBeLessThanOrEqual(room);
      }),
    );
  });
});

describe('checkBudget', () => {
  it('accepts the documented range and refuses anything else, naming max_chars', () => {
    for (const ok of [undefined, BUDGET_MIN_CHARS, 20_000, BUDGET_MAX_CHARS])
      expect(() => checkBudget(ok)).not.toThrow();
    for (const bad of [BUDGET_MIN_CHARS - 1, BUDGET_MAX_CHARS + 1, 2500.5, Number.NaN, -1]) {
      expect(() => checkBudget(bad)).toThrow(ValidationError);
    }
  });
});

describe('budgetedPage', () => {
  it('never exceeds the budget, shows at least one item, and shows items whole or as previews, in order', () => {
    fc.assert(
      fc.property(
        memoriesArb(30),
        fc.integer({ min: BUDGET_MIN_CHARS, max: 80_000 }),
        fc.nat(CURSOR_MAX - 100),
        fc.boolean(),
        (items, maxChars, offset, more) => {
          const { answer, shown } = budgetedPage({
            items,
            offset,
            more,
            maxChars,
            shape: memoryPreview,
            answer: restAnswer(offset + items.length + (more ? 5 : 0)),
          });
          expect(jsonLength(answer)).toBeLessThanOrEqual(maxChars);
          expect(answer.memories.length).toBe(shown);
          if (items.length > 0) expect(shown).toBeGreaterThanOrEqual(1);
          answer.memories.forEach((memory, i) => {
            expectWholeOrPreview(memory, items[i] as RankedMemory);
          });
          const continues = shown < items.length || more;
          expect(answer.next_cursor).toBe(continues ? String(offset + shown) : null);
          // Everything whole when everything fits (measured with this answer's own total: its digits count).
          const whole = restAnswer(offset + items.length + (more ? 5 : 0))(items, String(CURSOR_MAX));
          if (jsonLength(whole) + 8 <= maxChars) {
            expect(answer.memories).toEqual(items);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('without a budget returns every candidate whole', () => {
    fc.assert(
      fc.property(memoriesArb(10), fc.boolean(), (items, more) => {
        const { answer } = budgetedPage({
          items,
          offset: 0,
          more,
          maxChars: undefined,
          shape: memoryPreview,
          answer: restAnswer(items.length),
        });
        expect(answer.memories).toEqual(items);
        expect(answer.next_cursor).toBe(more ? String(items.length) : null);
      }),
      { numRuns: 50 },
    );
  });

  it('pages through a whole list with cursors: every item exactly once, each page within the budget', () => {
    fc.assert(
      fc.property(
        memoriesArb(40),
        fc.integer({ min: BUDGET_MIN_CHARS, max: 40_000 }),
        fc.integer({ min: 1, max: 25 }),
        (list, maxChars, limit) => {
          const seen: string[] = [];
          let cursor: string | null = '0';
          let pages = 0;
          while (cursor !== null) {
            const offset: number = Number(cursor);
            const window = list.slice(offset, offset + limit);
            const { answer }: { answer: ReturnType<ReturnType<typeof restAnswer>> } = budgetedPage({
              items: window,
              offset,
              more: offset + window.length < list.length,
              maxChars,
              shape: memoryPreview,
              answer: restAnswer(list.length),
            });
            expect(jsonLength(answer)).toBeLessThanOrEqual(maxChars);
            seen.push(...answer.memories.map((m) => m.memory_id));
            cursor = answer.next_cursor;
            pages++;
            expect(pages).toBeLessThanOrEqual(list.length + 1);
          }
          expect(seen).toEqual(list.map((m) => m.memory_id));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('gives no cursor past `reach` (ranked results end there)', () => {
    const items = Array.from({ length: 5 }, (_, i) => ({ id: i }));
    const shape: PreviewShape<{ id: number }> = { extent: () => 0, preview: (item) => item };
    const page = (reach: number) =>
      budgetedPage({
        items,
        offset: 495,
        more: true,
        maxChars: undefined,
        shape,
        reach,
        answer: (x, next) => ({ x, next }),
      }).answer.next;
    expect(page(499)).toBeNull();
    expect(page(500)).toBe('500');
  });
});

describe('fitItems', () => {
  it('shrinks a single item that does not fit at the floor instead of failing, down to its minimal preview', () => {
    const huge: RankedMemory = {
      memory_id: 'mem_1',
      text: 'y'.repeat(MEMORY_TEXT_MAX),
      project_name: null,
      metadata: {},
      created_at: 'x',
      updated_at: 'x',
      last_accessed_at: null,
      expires_at: null,
      pinned: false,
      superseded_by: null,
    };
    for (const room of [150, 300, 500, 5_000]) {
      const [shown] = fitItems([huge], room, memoryPreview, true);
      expect(shown?.truncated).toBe(true);
      expect(jsonLength(shown)).toBeLessThanOrEqual(Math.max(room, jsonLength(memoryPreview.preview(huge, 0))));
    }
    // Without atLeastOne (the context block's sections) an item that does not fit at the floor is left out.
    expect(fitItems([huge], PREVIEW_FLOOR, memoryPreview, false)).toEqual([]);
  });

  it('gives every long item the same cut, the longest that fits to within 1/32 (short items stay whole)', () => {
    const memory = (id: string, length: number): RankedMemory => ({
      memory_id: id,
      text: 'z'.repeat(length),
      project_name: null,
      metadata: {},
      created_at: 'x',
      updated_at: 'x',
      last_accessed_at: null,
      expires_at: null,
      pinned: false,
      superseded_by: null,
    });
    const items = [memory('a', 5000), memory('b', 50), memory('c', 5000)];
    const shown = fitItems(items, 3000, memoryPreview, true);
    expect(shown.map((m) => m.memory_id)).toEqual(['a', 'b', 'c']);
    expect(shown[1]).toEqual(items[1]);
    const [a, , c] = shown as [RankedMemory, RankedMemory, RankedMemory];
    expect(a.text.length).toBe(c.text.length);
    expect(jsonLength(shown) - 2).toBeLessThanOrEqual(3000);
    // A cut longer by 1/32 (and one character) would not fit.
    const kept = a.text.length - PREVIEW_MARKER.length;
    const more = kept + Math.max(1, kept >> 5) + 1;
    const longer = items.map((m) => (m.text.length > 50 ? memoryPreview.preview(m, more) : m));
    expect(jsonLength(longer) - 2).toBeGreaterThan(3000);
  });
});

/**
 * The contract's promise: BUDGET_MIN_CHARS always holds the envelope and one item's minimal preview, for every
 * kind, even when every field is at its limit and made of characters JSON escapes six-fold.
 */
describe('the minimal preview of the largest possible item fits the smallest budget', () => {
  const escaped = (n: number) => '\u0001'.repeat(n);
  const envelope = jsonLength({ items: [], total: 1e9, page: 10_000, per_page: 100, next_cursor: String(CURSOR_MAX) });
  const fits = (item: unknown) => expect(envelope + 8 + jsonLength(item)).toBeLessThanOrEqual(BUDGET_MIN_CHARS);

  it('memories', () => {
    const memory: RankedMemory = {
      memory_id: `mem_${'0'.repeat(26)}`,
      text: escaped(MEMORY_TEXT_MAX),
      project_name: 'p'.repeat(PROJECT_MAX),
      metadata: { category: escaped(100), priority: 'medium', tags: Array.from({ length: 20 }, () => escaped(50)) },
      created_at: '2026-11-21T10:00:00.000Z',
      updated_at: '2026-11-21T10:00:00.000Z',
      last_accessed_at: '2026-11-21T10:00:00.000Z',
      expires_at: null,
      pinned: false,
      superseded_by: null,
      score: 0.123456,
      score_parts: {
        keyword: 0.123456,
        project: 0.123456,
        priority: 0.5,
        recency: 0.123456,
        weights: { keyword: 0.123456, project: 0.123456, priority: 0.123456, recency: 0.123456 },
        bm25: 123.123456,
      },
    };
    fits(memoryPreview.preview(memory, 0));
  });

  it('prompts (lists with full=true, and svc_list_prompts)', () => {
    const summary = {
      id: `prm_${'0'.repeat(26)}`,
      slug: 's'.repeat(100),
      title: escaped(200),
      description: escaped(200),
      status: 'published' as const,
      available_in_mcp: true,
      labels: Array.from({ length: MAX_LABELS }, () => escaped(50)),
      created_at: '2026-11-21T10:00:00.000Z',
      updated_at: '2026-11-21T10:00:00.000Z',
    };
    const full: PromptListItem = {
      ...summary,
      content: escaped(100_000),
      variables: Array.from({ length: 1000 }, (_, i) => `v${i}`),
      references: Array.from({ length: 1000 }, (_, i) => `@r${i}`),
      variable_schema: { v0: { description: escaped(500) } },
      version: 123_456,
    };
    fits(promptListItemPreview.preview(full, 0));
    const index: PromptIndexItem = {
      ...summary,
      variables: Array.from({ length: 100 }, (_, i) => ({ name: `v${i}`, description: escaped(500), required: true })),
    };
    fits(promptIndexItemPreview.preview(index, 0));
  });

  it('artifacts', () => {
    const artifact: ArtifactListItem = {
      id: `art_${'0'.repeat(26)}`,
      project: 'p'.repeat(PROJECT_MAX),
      slug: 's'.repeat(100),
      title: escaped(200),
      description: escaped(500),
      content_type: `text/plain; x="${escaped(240)}"`,
      labels: Array.from({ length: MAX_LABELS }, () => escaped(50)),
      metadata: { note: escaped(2000) },
      size_bytes: 1024 ** 3,
      sha256: 'f'.repeat(64),
      version: 1_000_000,
      created_at: '2026-11-21T10:00:00.000Z',
      updated_at: '2026-11-21T10:00:00.000Z',
    };
    fits(artifactListItemPreview.preview(artifact, 0));
  });
});
