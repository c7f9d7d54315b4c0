import type { z } from 'zod';

const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

const regexLiteral = /^\/(.*)\/[a-z]*$/s;

const typeNames: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  null: 'null',
};

/** Lists allowed literal values as `"a", "b" or "c"`. */
export function listValues(values: readonly unknown[]): string {
  const quoted = values.map((value) => JSON.stringify(value));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** `"a"`, `"a" or "b"`, `one of "a", "b" or "c"`. */
export function oneOf(values: readonly unknown[]): string {
  return values.length <= 2 ? listValues(values) : `one of ${listValues(values)}`;
}

/**
 * Parse-level error map: turns every issue a schema did not word itself into a short rule
 * ("required", "must be a string", "must be one of ...") instead of zod's generic wording.
 */
export const humanErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'required';
      return `must be ${typeNames[issue.expected] ?? article(issue.expected)}`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string')
        return min <= 1 ? 'must not be empty' : `must be at least ${min} characters`;
      if (issue.origin === 'array') return min <= 1 ? 'must not be empty' : `must have at least ${min} items`;
      return issue.inclusive === false ? `must be greater than ${min}` : `must be at least ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `must be at most ${max} characters`;
      if (issue.origin === 'array') return `must have at most ${max} items`;
      return issue.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`;
    }
    case 'invalid_value':
      return issue.input === undefined
        ? `required, must be ${oneOf(issue.values)}`
        : `must be ${oneOf(issue.values)}`;
    case 'invalid_union':
      if (typeof issue.discriminator === 'string' && Array.isArray(issue.options)) {
        // The issue's input is the object carrying the discriminator, not the discriminator itself.
        const input = issue.input as Record<string, unknown> | undefined;
        const values = oneOf(issue.options);
        return input?.[issue.discriminator] === undefined
          ? `required, must be ${values}`
          : `must be ${values}`;
      }
      return 'has an unsupported shape';
    case 'invalid_format':
      // zod reports a regex as `/source/flags`; the rule reads better as the bare source.
      return issue.pattern === undefined
        ? `must be a valid ${issue.format}`
        : `must match ${issue.pattern.replace(regexLiteral, '$1')}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `unknown field(s) ${listValues(issue.keys)}`;
    default:
      return 'is invalid';
  }
};
