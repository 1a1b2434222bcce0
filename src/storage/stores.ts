import { createApiKeyStore } from './api-key-store.js';
import { createArtifactStore } from './artifact-store.js';
import { createAuditStore } from './audit-store.js';
import { createBundleStore } from './bundle-store.js';
import type { Database } from './database.js';
import { createMemoryStore } from './memory-store.js';
import { createPromptStore } from './prompt-store.js';
import { createSessionStore } from './session-store.js';
import { createUserStore } from './user-store.js';
import { createWebhookStore } from './webhook-store.js';

/** Every store over one database, each given the database's dialect: the only wiring storage needs. */
export function createStores(database: Database) {
  const { db, dialect } = database;
  const memories = createMemoryStore(db, dialect);
  return {
    users: createUserStore(db, dialect),
    sessions: createSessionStore(db),
    keys: createApiKeyStore(db, dialect),
    prompts: createPromptStore(db, dialect),
    artifacts: createArtifactStore(db, dialect),
    memories,
    bundles: createBundleStore(db, dialect, memories),
    audit: createAuditStore(db),
    webhooks: createWebhookStore(db, dialect),
  };
}

export type Stores = ReturnType<typeof createStores>;
