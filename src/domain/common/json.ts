/**
 * JSON helpers that never recurse on client data: a deeply nested body must give a 400, not a stack
 * overflow (api-decisions §1).
 */
export type JsonObject = { [key: string]: unknown };

export const isPlainObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Nesting depth of a JSON value, computed iteratively; stops counting past `limit`. */
export function jsonDepth(value: unknown, limit: number): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return max;
}

/**
 * JSON Merge Patch (RFC 7396), iterative over the patch's objects: objects merge key by key, `null`
 * removes a key, anything else replaces. Inputs are not modified.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  // Keys are written as own data properties: `into[key] = …` with key "__proto__" would replace the
  // result's prototype (hiding the key from JSON and leaking its members as inherited ones) instead of
  // adding the key.
  const set = (into: JsonObject, key: string, value: unknown) =>
    Object.defineProperty(into, key, { value, writable: true, enumerable: true, configurable: true });
  if (!isPlainObject(patch)) return patch;
  const root: JsonObject = isPlainObject(target) ? { ...target } : {};
  const work: Array<[JsonObject, JsonObject]> = [[root, patch]];
  while (work.length > 0) {
    const [into, from] = work.pop() as [JsonObject, JsonObject];
    for (const [key, value] of Object.entries(from)) {
      if (value === null) {
        delete into[key];
      } else if (isPlainObject(value)) {
        const existing = Object.hasOwn(into, key) ? into[key] : undefined;
        const next: JsonObject = isPlainObject(existing) ? { ...existing } : {};
        set(into, key, next);
        work.push([next, value]);
      } else {
        set(into, key, value);
      }
    }
  }
  return root;
}

/**
 * JSON with object keys sorted at every depth: equal values give equal text whatever their key order. For
 * values already validated (depth-limited), as JSON.stringify itself recurses.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    isPlainObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** Equal as JSON whatever the key order: the one "is this unchanged?" test for stored JSON values. */
export const sameJson = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

const deeplyFrozen = new WeakSet<object>();

/** Whether `value` came out of `deepFreeze`: it and everything in it can never change. */
export const isDeeplyFrozen = (value: object): boolean => deeplyFrozen.has(value);

/** Freezes a JSON value and everything in it, iteratively (a value shared by every caller of a cache). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) deeplyFrozen.add(value);
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== 'object' || current === null || Object.isFrozen(current)) continue;
    Object.freeze(current);
    for (const child of Object.values(current)) stack.push(child);
  }
  return value;
}
