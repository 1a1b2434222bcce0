import { boundedString } from './bounds.js';

/** A search string as any surface takes it (REST `search`, MCP `search`/`query`): bounded before it is split. */
export const SEARCH_MAX = 1000;
export const searchSchema = boundedString(SEARCH_MAX, 'Search must be at most 1,000 characters');
