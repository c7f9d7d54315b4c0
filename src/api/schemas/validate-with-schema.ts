import type { z } from 'zod';
import {
  type RequestValidationCode,
  RequestValidationError,
  type RequestValidationIssue,
} from '../errors.js';
import { formatIssuePath } from './format-issue-path.js';
import { humanErrorMap } from './human-error-map.js';

const parseContext = { error: humanErrorMap } as const;

/** `params` of a custom issue that the service answers with `unsupported_content_type`. */
export const unsupportedContentType = { svcCode: 'unsupported_content_type' } as const;

function codeOf(issue: z.core.$ZodIssue): RequestValidationCode {
  return issue.code === 'custom' && issue.params?.svcCode === 'unsupported_content_type'
    ? 'unsupported_content_type'
    : 'request_params_invalid';
}

const isTypeMismatch = (issue: z.core.$ZodIssue) => issue.code === 'invalid_type' && issue.path.length === 0;

/**
 * A union (`content: string | parts[]`) reports every branch; when only one branch got past the type
 * check, its own issues name the real rule, so they replace the union's summary.
 */
function expandUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const reached = issue.errors.filter((branch) => !branch.every(isTypeMismatch));
  const [branch] = reached;
  if (reached.length !== 1 || branch === undefined) return [issue];
  return branch.flatMap((inner) => expandUnion({ ...inner, path: [...issue.path, ...inner.path] }));
}

/** Maps zod issues to `{ path, message, code }` with `a.b[0].c` paths. */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): RequestValidationIssue[] {
  return issues
    .flatMap(expandUnion)
    .map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message, code: codeOf(issue) }));
}

/** Checks `params` with one `safeParse`; throws {@link RequestValidationError} naming every broken rule. */
export function validateWithSchema(schema: z.ZodType, operation: string, params: unknown): void {
  const result = schema.safeParse(params, parseContext);
  if (!result.success) {
    throw new RequestValidationError({ operation, issues: toValidationIssues(result.error.issues) });
  }
}
