import { z } from 'zod';

/** A zod `error` option that says `required` for a missing value and `rule` otherwise. */
export function ruleError(rule: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? 'required' : rule);
}

/** A required string of at least one character. */
export function nonEmptyString() {
  return z.string().min(1);
}

/** A finite number in `[min, max]`, worded `must be between min and max`. */
export function numberBetween(min: number, max: number) {
  const rule = `must be between ${min} and ${max}`;
  return z
    .number({ error: ruleError(`must be a number between ${min} and ${max}`) })
    .min(min, { error: rule })
    .max(max, { error: rule });
}

/** An integer in `[min, max]` (`max` optional), worded `must be an integer between min and max`. */
export function integerBetween(min: number, max?: number) {
  const rule =
    max === undefined
      ? min === 1
        ? 'must be a positive integer'
        : `must be an integer >= ${min}`
      : `must be an integer between ${min} and ${max}`;
  // Not z.int(): its issue stops later refinements, and the model rules should still report.
  const schema = z
    .number({ error: ruleError(rule) })
    .refine(Number.isInteger, { error: rule })
    .min(min, { error: rule });
  return max === undefined ? schema : schema.max(max, { error: rule });
}

/** A string or an array of strings. */
export function stringOrStrings() {
  return z.union([z.string(), z.array(z.string())], {
    error: ruleError('must be a string or an array of strings'),
  });
}

const dataUriHead = /^data:([a-z]+)\/([a-z0-9.+-]+);base64,/i;
const httpAddress = /^https?:\/\/[^\s/?#]+[^\s]*$/i;

/** True for an absolute http or https address. */
export function isHttpUrl(value: string): boolean {
  return httpAddress.test(value);
}

/**
 * Describes what is wrong with a base64 data URI, or `undefined` when it is fine. Only the prefix is
 * matched, so a multi-megabyte payload costs nothing to check.
 */
export function dataUriProblem(
  value: string,
  {
    mediaType,
    formats,
    formatPattern,
  }: { mediaType: 'image' | 'audio'; formats: string; formatPattern: RegExp },
): string | undefined {
  const head = dataUriHead.exec(value);
  if (head === null) return `must be a base64 data URI data:${mediaType}/<${formats}>;base64,...`;
  const [, type, format] = head;
  if (type?.toLowerCase() !== mediaType || !formatPattern.test(format ?? '')) {
    return `${type}/${format} is not supported; use data:${mediaType}/<${formats}>;base64,...`;
  }
  if (value.length === head[0].length) return 'must carry base64 data after "base64,"';
  return undefined;
}

/** True for a non-null object that is not an array: what a JSON object parses to. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
