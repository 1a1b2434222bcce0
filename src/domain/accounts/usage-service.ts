import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import { NotFoundError } from '../common/errors.js';
import { currentWindow, effectiveLimit, type TierLimits, WINDOW_MS, type WindowCounter } from '../limits/rate-limit.js';
import type { ApiKeyStore, UsageIncrement, UserStore } from './account-store.js';

export interface UsageServiceDeps {
  keys: ApiKeyStore;
  users: UserStore;
  counters: WindowCounter;
  clock: Clock;
  tierLimits: TierLimits;
  /** Figures not yet written by the batch writer. */
  pending: (userId: string) => UsageIncrement[];
}

/** Requests per key and hour (persisted history plus what is still buffered) and the current window. */
export function createUsageService({ keys, users, counters, clock, tierLimits, pending }: UsageServiceDeps) {
  return {
    async usage(actor: Actor, hours: number) {
      const user = await users.findById(actor.userId);
      if (!user) throw new NotFoundError('User');
      const now = clock.now();
      const since = new Date(Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS - (hours - 1) * WINDOW_MS).toISOString();
      const stored = await keys.hourlyUsage(actor.userId, since);
      const names = new Map((await keys.listByUser(actor.userId)).map((k) => [k.id, k.name]));
      const merged = new Map<string, { hour_start: string; key_id: string; key_name: string; count: number }>();
      for (const row of stored) {
        merged.set(`${row.hourStart}|${row.keyId}`, {
          hour_start: row.hourStart,
          key_id: row.keyId,
          key_name: row.keyName,
          count: row.count,
        });
      }
      for (const inc of pending(actor.userId)) {
        const hourStart = new Date(inc.hourStartMs).toISOString();
        if (hourStart < since) continue;
        const id = `${hourStart}|${inc.keyId}`;
        const entry = merged.get(id) ?? {
          hour_start: hourStart,
          key_id: inc.keyId,
          key_name: names.get(inc.keyId) ?? inc.keyId,
          count: 0,
        };
        entry.count += inc.count;
        merged.set(id, entry);
      }
      const window = currentWindow(now);
      const limit = effectiveLimit(user.tier, user.rateLimit, tierLimits);
      const count = await counters.peek(`rate:${actor.userId}`, window);
      return {
        window: { count, limit, remaining: Math.max(0, limit - count), reset: window.resetEpochSeconds },
        hours: [...merged.values()].sort(
          (a, b) => a.hour_start.localeCompare(b.hour_start) || a.key_id.localeCompare(b.key_id),
        ),
      };
    },
  };
}
