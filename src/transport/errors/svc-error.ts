const marker = Symbol.for('svc-agents.error');

/** Base class of every error svc-agents throws; `SvcError.isInstance` holds across duplicated bundles. */
export class SvcError extends Error {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read with `marker in error` by isInstance
  private readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  /**
   * True when `error` is an svc-agents error of this class (`SvcError.isInstance` for any of them,
   * `RateLimitError.isInstance` for that subclass), even from another copy of the package.
   */
  static isInstance<T extends SvcError>(this: { prototype: T; name: string }, error: unknown): error is T {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class the check was called on
    return isInstanceOfClass(error, this);
  }

  /** Plain, key-free JSON so errors log cleanly with `JSON.stringify`. */
  toJSON(): Record<string, unknown> {
    const json: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (key !== 'cause') json[key] = value;
    }
    return json;
  }
}

/** Marked svc-agents error whose prototype chain holds `cls`, by identity or, across copies, by class name. */
function isInstanceOfClass(error: unknown, cls: { prototype: unknown; name: string }): boolean {
  if (typeof error !== 'object' || error === null || !(marker in error)) return false;
  for (let proto: unknown = Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto)) {
    if (
      proto === cls.prototype ||
      (proto as { constructor?: { name?: string } }).constructor?.name === cls.name
    ) {
      return true;
    }
  }
  return false;
}

/** A client option is missing or invalid (e.g. no API key); thrown at construction, before any request. */
export class ConfigurationError extends SvcError {
  /** The option at fault, e.g. `apiKey`. */
  readonly option: string;

  constructor(option: string, message: string) {
    super(`${option}: ${message}`);
    this.option = option;
  }
}
