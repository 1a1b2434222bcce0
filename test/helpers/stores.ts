import { type Database, migrateToLatest, type OpenOptions, openDatabase } from '../../src/storage/database.js';
import { createStores, type Stores } from '../../src/storage/stores.js';
import { TEST_CHANGE } from './change.js';
import { createTestDatabase, type Dialect, type TestDatabase } from './databases.js';

const AT = '2026-01-01T00:00:00.000Z';

/** A user record for store-level tests (`<id>@example.com`, free tier). */
export const testUser = (id: string) => ({
  id,
  email: `${id}@example.com`,
  passwordHash: null,
  tier: 'free' as const,
  rateLimit: null,
  isAdmin: false,
  createdAt: AT,
  updatedAt: AT,
});

export interface TestStores {
  testDb: TestDatabase;
  database: Database;
  stores: Stores;
  /** Closes the database and drops it. */
  close(): Promise<void>;
}

/** A fresh, migrated database of `dialect` with its stores, holding the users `userIds`. */
export async function openTestStores(
  dialect: Dialect,
  userIds: readonly string[] = [],
  options: OpenOptions = {},
): Promise<TestStores> {
  const testDb = await createTestDatabase(dialect);
  const database = await openDatabase(testDb.url, options);
  await migrateToLatest(database);
  const stores = createStores(database);
  for (const id of userIds) await stores.users.insert(testUser(id), TEST_CHANGE);
  return {
    testDb,
    database,
    stores,
    async close() {
      await database.close();
      await testDb.drop();
    },
  };
}
