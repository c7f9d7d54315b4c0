const marker = Symbol.for('svc-agents.error');

/** Base class of every error svc-agents throws; `SvcError.isInstance` holds across duplicated bundles. */
export class SvcError extends Error {
  private readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  /** True when `error` is any svc-agents error, even from another copy of the package. */
  static isInstance(error: unknown): error is SvcError {
    return typeof error === 'object' && error !== null && marker in error;
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
