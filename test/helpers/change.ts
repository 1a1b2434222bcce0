import type { Change } from '../../src/domain/common/audit.js';

/** A change as a service would hand it to a store, for tests that write through stores directly. */
export const TEST_CHANGE: Change = Object.freeze({
  surface: 'cli',
  keyId: null,
  integration: null,
  clientName: 'test',
  clientVersion: null,
  at: '2026-01-01T00:00:00.000Z',
});
