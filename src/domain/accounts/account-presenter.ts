import type { ApiKeyView, UserView } from './account-schemas.js';
import type { ApiKeyRecord, UserRecord } from './account-store.js';

/** Records (as stores return them) → the API's shapes. The one place account fields are renamed for clients. */
export const toKeyView = (key: ApiKeyRecord): ApiKeyView => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  integrations: key.integrations,
  legacy: key.legacy,
  created_at: key.createdAt,
  last_used_at: key.lastUsedAt,
  request_count: key.requestCount,
  revoked_at: key.revokedAt,
});

export const toUserView = (user: UserRecord): UserView => ({
  id: user.id,
  email: user.email,
  tier: user.tier,
  rate_limit: user.rateLimit,
  is_admin: user.isAdmin,
  created_at: user.createdAt,
  updated_at: user.updatedAt,
});
