import { SEARCH_MAX } from '../../contract/index.js';
import { boundedString } from './bounds.js';

export { SEARCH_MAX };

/** A search string as any surface takes it (REST `search`, MCP `search`/`query`): bounded before it is split. */
export const searchSchema = boundedString(SEARCH_MAX, 'Search must be at most 1,000 characters');
