import type { ChatCompletionCreateParams } from '../api/types/chat.js';
import { EmulatorHttpError } from './errors.js';

// Bounds on the work one chat request may ask of the emulator. The spec sets no maximum on `n` or on the
// numbers inside a JSON Schema, but an 82-byte `n: 50000000` or a 240-byte `minLength: 3e8` would take
// the whole process down, and users run the emulator in their CI: past these it answers a spec-shaped 400.

/** Most alternatives (`n`) one request may ask for; the spec recommends at most 5. */
export const MAX_CHOICES = 128;
/** Largest `minLength`, `minItems` or `minProperties` a schema may ask of a generated value. */
export const MAX_SCHEMA_MINIMUM = 10_000;

const MINIMUM_KEYWORDS = ['minLength', 'minItems', 'minProperties', 'minContains'] as const;

/** Throws a 400 naming the field when the request asks for more work than the emulator does for one answer. */
export function checkWorkBounds(body: ChatCompletionCreateParams): void {
  if (typeof body.n === 'number' && body.n > MAX_CHOICES)
    throw bound(`n: at most ${MAX_CHOICES} alternatives in the emulator (the service recommends at most 5)`);
  body.tools?.forEach((tool, i) => {
    const parameters = (tool as { function?: { parameters?: unknown } }).function?.parameters;
    checkSchemaMinimums(parameters, `tools[${i}].function.parameters`);
  });
  const format = body.response_format as { json_schema?: { schema?: unknown } } | undefined;
  checkSchemaMinimums(format?.json_schema?.schema, 'response_format.json_schema.schema');
}

/** Walks a schema without recursion and refuses a generated-size keyword past the bound. */
function checkSchemaMinimums(schema: unknown, path: string): void {
  const stack: Array<[unknown, string]> = [[schema, path]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    for (const keyword of MINIMUM_KEYWORDS) {
      const value = (node as Record<string, unknown>)[keyword];
      if (typeof value === 'number' && value > MAX_SCHEMA_MINIMUM)
        throw bound(`${at}.${keyword}: at most ${MAX_SCHEMA_MINIMUM} in the emulator`);
    }
    for (const [key, child] of Object.entries(node)) stack.push([child, `${at}.${key}`]);
  }
}

function bound(message: string): EmulatorHttpError {
  return new EmulatorHttpError(400, 'request_params_invalid', message);
}

/** Nesting of a generated value at which a schema whose required parts never end is refused (a `$ref` cycle with no leaf). */
export const MAX_FILL_DEPTH = 64;
/** Values one answer may hold: nested `minItems` multiply, so a tiny schema can ask for billions. */
export const MAX_FILLED_VALUES = 20_000;

/** The 400 for a schema that asks more of one answer than the bounds allow. */
export function tooLarge(what: string): EmulatorHttpError {
  return bound(`body: the schema asks for ${what}; the emulator bounds the work of one answer`);
}

/** Longest value tested against a pattern that may backtrack exponentially (2^20 steps stay fast). */
export const MAX_BACKTRACKING_TEST = 20;

/** True when a group that contains a quantifier is itself quantified: `(a+)+`, `(\\w*)*`, `(a|b+){2,}`. */
export function nestsQuantifiers(pattern: string): boolean {
  const groups: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') groups.push(false);
    else if (c === ')') {
      const quantifiedInside = groups.pop() ?? false;
      const next = pattern[i + 1];
      const quantified = next === '+' || next === '*' || next === '{';
      if (quantifiedInside && quantified) return true;
      if (quantifiedInside || quantified) groups[groups.length - 1] = true;
    } else if ((c === '+' || c === '*' || c === '{') && groups.length > 0) groups[groups.length - 1] = true;
  }
  return false;
}
