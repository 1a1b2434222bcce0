import { type Config, loadConfig } from '../../src/config.js';
import { type Container, type ContainerOptions, createContainer } from '../../src/container.js';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import type { Integration } from '../../src/domain/accounts/integrations.js';
import type { Actor } from '../../src/domain/common/actor.js';
import { createTestDatabase, type Dialect, type TestDatabase } from './databases.js';

/**
 * The service tier (ARCHITECTURE §7, tier 2): the container's services over real stores on a real database,
 * with no HTTP in between. What a service promises (ownership, versions, conflicts, ranking) is checked
 * here once for every transport.
 */
export interface TestServices {
  container: Container;
  services: Container['services'];
  database: TestDatabase;
  /** A new user and an actor calling as that user through the REST API with the given integrations. */
  actor(integrations?: Integration[]): Promise<Actor>;
  close(): Promise<void>;
}

let counter = 0;

export async function createTestServices(
  dialect: Dialect,
  env: Record<string, string> = {},
  options: ContainerOptions = {},
  /** Work on the new database before the container opens (and migrates) it. */
  prepare?: (database: TestDatabase) => Promise<void>,
): Promise<TestServices> {
  const database = await createTestDatabase(dialect);
  await prepare?.(database);
  const config: Config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    USAGE_FLUSH_INTERVAL_MS: '3600000',
    ...env,
  });
  const container = await createContainer(config, options);
  return {
    container,
    services: container.services,
    database,
    async actor(integrations = ['ai_tools', 'cli']) {
      const user = await container.services.users.create(OPERATOR, {
        email: `svc${++counter}-${Date.now()}@example.com`,
      });
      return { userId: user.id, integrations: new Set(integrations), via: 'rest' };
    },
    async close() {
      await container.close();
      await database.drop();
    },
  };
}
