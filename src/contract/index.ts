/**
 * The API contract every client shares: types, enums and limits, with no runtime dependencies (no zod, no
 * Node): the domain's schemas, the dashboard (web/) and the CLI all import it. See README.md.
 */
export * from './enums.js';
export * from './limits.js';
export * from './paging.js';
export * from './patterns.js';
export type * from './types.js';
