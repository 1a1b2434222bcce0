import { describe, expect, it } from 'vitest';
import { MAX_PAGE, MAX_PER_PAGE } from './limits.js';
import { fetchAllPages } from './paging.js';

/** A list of `total` numbers served a page at a time, recording the pages asked for. */
function list(total: number, shrinkTo = total) {
  const asked: { page: number; perPage: number }[] = [];
  const fetchPage = async (page: number, perPage: number) => {
    asked.push({ page, perPage });
    const now = asked.length > 1 ? shrinkTo : total;
    const items = Array.from({ length: now }, (_, i) => i).slice((page - 1) * perPage, page * perPage);
    return { items, total: now };
  };
  return { asked, fetchPage };
}

describe('fetchAllPages', () => {
  it('reads every page, MAX_PER_PAGE at a time, and stops after the last', async () => {
    const { asked, fetchPage } = list(2 * MAX_PER_PAGE + 5);
    const all = await fetchAllPages(fetchPage);
    expect(all).toEqual(Array.from({ length: 2 * MAX_PER_PAGE + 5 }, (_, i) => i));
    expect(asked).toEqual([1, 2, 3].map((page) => ({ page, perPage: MAX_PER_PAGE })));
  });

  it('asks once for an empty list, and once for a list of exactly one page', async () => {
    const empty = list(0);
    expect(await fetchAllPages(empty.fetchPage)).toEqual([]);
    expect(empty.asked).toHaveLength(1);
    const full = list(MAX_PER_PAGE);
    expect(await fetchAllPages(full.fetchPage)).toHaveLength(MAX_PER_PAGE);
    expect(full.asked).toHaveLength(1);
  });

  it('stops at an empty page when the list shrank meanwhile', async () => {
    const { asked, fetchPage } = list(3 * MAX_PER_PAGE, MAX_PER_PAGE);
    expect(await fetchAllPages(fetchPage)).toHaveLength(MAX_PER_PAGE);
    expect(asked.map((a) => a.page)).toEqual([1, 2]);
  });

  it('reads at most maxPages pages, and never past MAX_PAGE', async () => {
    const capped = list(10 * MAX_PER_PAGE);
    expect(await fetchAllPages(capped.fetchPage, 3)).toHaveLength(3 * MAX_PER_PAGE);
    expect(capped.asked).toHaveLength(3);

    // A server that always claims more: the page bound ends the loop.
    let pages = 0;
    await fetchAllPages(async () => {
      pages++;
      return { items: [0], total: Number.MAX_SAFE_INTEGER };
    }, MAX_PAGE + 50);
    expect(pages).toBe(MAX_PAGE);
  });
});
