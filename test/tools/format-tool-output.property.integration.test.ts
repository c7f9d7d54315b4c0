import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toText, toTextCarefully } from '../../src/tools/format-tool-output.js';

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

/** Leaves: JSON's own values, and every kind the careful walk treats its own way. */
const leafArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
  fc.constantFrom(undefined, Number.NaN, -0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '\ud800'),
  fc.bigInt(),
  fc.constantFrom(
    () => 1,
    Symbol('s'),
    new Date(Date.UTC(2026, 10, 24)),
    new Date(Number.NaN),
    Object.assign(new Date(0), { toJSON: () => 'custom' }),
    new Number(3),
    new String('boxed'),
    new Boolean(false),
    new Uint8Array([1, 2]),
    new BigInt64Array([5n]),
    new Point(1, 2),
    new TypeError('bad'),
  ),
);

const keyArb = fc.oneof(
  { weight: 5, arbitrary: fc.string({ maxLength: 6 }) },
  fc.constantFrom('__proto__', 'toJSON', 'constructor', '0', '10', 'a.b', 'json'),
);

/** JSON-ish trees of those leaves: arrays (with holes), objects, Maps, Sets, Errors, toJSON holders. */
const treeArb = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafArb,
    fc.array(tie('tree'), { maxLength: 5 }),
    fc.sparseArray(tie('tree'), { maxLength: 5 }),
    fc.array(fc.tuple(keyArb, tie('tree')), { maxLength: 5 }).map((entries) => {
      const object: Record<string, unknown> = {};
      for (const [key, value] of entries) {
        Object.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true });
      }
      return object;
    }),
    fc.array(fc.tuple(keyArb, tie('tree')), { maxLength: 3 }).map((entries) => {
      const object = Object.create(null) as Record<string, unknown>;
      for (const [key, value] of entries) object[key] = value;
      return object;
    }),
    fc
      .array(fc.tuple(fc.oneof(keyArb, fc.integer(), tie('tree')), tie('tree')), { maxLength: 3 })
      .map((entries) => new Map(entries)),
    fc.array(tie('tree'), { maxLength: 3 }).map((items) => new Set(items)),
    tie('tree').map((value) => ({ toJSON: () => value })),
    tie('tree').map((value) => Object.assign([1, 2], { toJSON: () => value })),
    tie('tree').map((value) => Object.assign(new Error('wrapped', { cause: value }), { extra: value })),
    tie('tree').map((value) => ({ value, [Symbol('k')]: 1 })),
    tie('tree').map((value) => {
      const object: Record<string | symbol, unknown> = { value };
      Object.defineProperty(object, Symbol('hidden'), { value: 1, enumerable: false });
      return object;
    }),
  ),
})).tree;

/**
 * Plain JSON with one odd thing in it (a special leaf under any key, often `__proto__` or `toJSON`): the
 * values where a fast path that looks too little would go wrong.
 */
const almostPlainArb = fc
  .tuple(fc.jsonValue({ maxDepth: 3 }), leafArb, keyArb, fc.boolean())
  .map(([json, odd, key, inArray]) => {
    const holder: Record<string, unknown> = { json };
    Object.defineProperty(holder, key, { value: odd, enumerable: true, configurable: true, writable: true });
    return inArray ? [json, holder] : holder;
  });

/** A tree, sometimes inside a root that refers back to itself (directly, through a Map or an array). */
const valueArb = fc
  .tuple(fc.oneof(treeArb, almostPlainArb, fc.jsonValue()), fc.integer({ min: 0, max: 3 }))
  .map(([value, loop]) => {
    if (loop === 0) return value;
    const root: Record<string, unknown> = { value };
    root.loop = loop === 1 ? root : loop === 2 ? new Map([['back', root]]) : [value, root];
    return root;
  });

/** The text, or the error's class and message: the two paths must agree on both. */
function outcome(convert: (value: unknown) => string, value: unknown): unknown {
  try {
    return { text: convert(value) };
  } catch (error) {
    return { error: (error as Error).name, message: (error as Error).message };
  }
}

describe('toText (the fast path of formatToolOutput)', () => {
  describe('when given any JSON-ish value', () => {
    it('should write the same text, or throw the same error, as the careful walk', () => {
      fc.assert(
        fc.property(valueArb, (value) => {
          expect(outcome(toText, value)).toEqual(outcome(toTextCarefully, value));
        }),
        { numRuns: 2000 },
      );
    });
  });

  describe('when given plain data deeper than the fast path looks', () => {
    it('should fall back and still write it', () => {
      let deep: unknown = { leaf: [1, 'a', null] };
      for (let i = 0; i < 200; i++) deep = i % 2 ? { next: deep } : [deep];
      expect(toText(deep)).toBe(toTextCarefully(deep));
      expect(toText(deep)).toBe(JSON.stringify(deep));
    });
  });
});
