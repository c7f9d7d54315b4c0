/** Values already given to parameters, per pool (`place`, `id`, `number` ...), so each is used once. */
export class ValuePools {
  private readonly used = new Map<string, number>();

  /** The first of `values` not yet used from `pool`, now marked used. */
  next(pool: string, values: string[]): string | undefined {
    const value = values.find((v) => !this.isUsed(pool, v));
    if (value !== undefined) this.use(pool, value);
    return value;
  }

  /** Whether `value` was already used from `pool`. */
  isUsed(pool: string, value: string): boolean {
    return this.used.has(`${pool}\u0000${value}`);
  }

  /** Marks `value` used from `pool`. */
  use(pool: string, value: string): void {
    this.used.set(`${pool}\u0000${value}`, 1);
  }
}
