/**
 * `tools` arrays that passed validation and cannot change (deep-frozen), keyed by identity: an agent sends
 * the same frozen definitions on every turn, and checking their JSON Schemas again would find nothing new.
 * Kept free of zod so the tools layer can freeze its definitions without loading the schemas.
 */
export const validatedToolArrays = new WeakSet<object>();

/** Whether `value` and everything reachable from it is frozen, so a check of it stays true forever. */
export function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (!Object.isFrozen(value)) return false;
  for (const key of Object.keys(value)) {
    if (!isDeepFrozen((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/** Freezes `value` and everything reachable from it (plain JSON data). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}
