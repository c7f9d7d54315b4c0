/**
 * Sets a non-enumerable property, so `JSON.stringify(error)` and loggers skip it (a run state may be
 * large and holds the user's conversation) while `error.state` still reads it.
 */
export function defineHidden(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: false, configurable: true, writable: true });
}
