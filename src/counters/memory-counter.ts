import type { Admitted, RateWindow, Take, WindowCounter } from '../domain/limits/rate-limit.js';

interface Slot {
  endsAtMs: number;
  count: number;
}

/**
 * Window counters in this process: exact under concurrency because the event loop runs one
 * increment at a time. Right for a single instance; several instances need the shared (Redis) one.
 */
export function createMemoryCounter(): WindowCounter {
  const slots = new Map<string, Slot>();
  let sweptForWindow = 0;

  function slot(key: string, window: RateWindow): Slot {
    // Once per window, drop the slots of earlier windows so that one-off keys (client IPs) don't pile up.
    if (sweptForWindow !== window.endsAtMs) {
      sweptForWindow = window.endsAtMs;
      for (const [k, s] of slots) if (s.endsAtMs < window.endsAtMs) slots.delete(k);
    }
    let current = slots.get(key);
    if (!current || current.endsAtMs !== window.endsAtMs) {
      current = { endsAtMs: window.endsAtMs, count: 0 };
      slots.set(key, current);
    }
    return current;
  }

  const current = (key: string, window: RateWindow): Slot | undefined => {
    const s = slots.get(key);
    return s && s.endsAtMs === window.endsAtMs ? s : undefined;
  };

  function admitNow(key: string, limit: number, blockKey: string, blockLimit: number, window: RateWindow): Admitted {
    const block = slots.get(blockKey);
    if (block && block.endsAtMs === window.endsAtMs && block.count >= blockLimit) {
      return { blocked: true, taken: false, count: slot(key, window).count };
    }
    const s = slot(key, window);
    if (s.count >= limit) return { blocked: false, taken: false, count: s.count };
    s.count += 1;
    return { blocked: false, taken: true, count: s.count };
  }

  return {
    async tryTake(key, limit, window, units = 1) {
      const s = slot(key, window);
      if (s.count + units > limit) return { taken: false, count: s.count };
      s.count += units;
      return { taken: true, count: s.count };
    },
    // No await between the checks and the increments: the event loop makes the whole take one step.
    async tryTakeAll(takes, window) {
      const held = takes.map((take) => slot(take.key, window));
      if (held.some((s, i) => s.count + 1 > (takes[i] as Take).limit)) {
        return { taken: false, counts: held.map((s) => s.count) };
      }
      for (const s of held) s.count += 1;
      return { taken: true, counts: held.map((s) => s.count) };
    },
    async release(key, window, units = 1) {
      const s = current(key, window);
      if (s) s.count = Math.max(0, s.count - units);
    },
    async admit(key, limit, blockKey, blockLimit, window) {
      return admitNow(key, limit, blockKey, blockLimit, window);
    },
    admitNow,
    async increment(key, window) {
      const s = slot(key, window);
      s.count += 1;
      return s.count;
    },
    async peek(key, window) {
      return current(key, window)?.count ?? 0;
    },
    async close() {
      slots.clear();
    },
  };
}
