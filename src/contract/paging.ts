import { MAX_PAGE, MAX_PER_PAGE } from './limits.js';

/** One page as a client reads it: its items and the list's total. */
export interface PageOf<T> {
  items: readonly T[];
  total: number;
}

/**
 * Every item of a list, a page of MAX_PER_PAGE at a time, through any client's request function: stops at
 * the last page, at an empty page (the list shrank meanwhile), or after `maxPages` (never past MAX_PAGE,
 * which the server refuses).
 */
export async function fetchAllPages<T>(
  fetchPage: (page: number, perPage: number) => Promise<PageOf<T>>,
  maxPages: number = MAX_PAGE,
): Promise<T[]> {
  const all: T[] = [];
  const last = Math.min(maxPages, MAX_PAGE);
  for (let page = 1; page <= last; page++) {
    const { items, total } = await fetchPage(page, MAX_PER_PAGE);
    all.push(...items);
    if (items.length === 0 || page * MAX_PER_PAGE >= total) break;
  }
  return all;
}
