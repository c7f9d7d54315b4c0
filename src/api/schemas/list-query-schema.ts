import { z } from 'zod';
import { integerBetween } from './field-rules.js';
import { validateWithSchema } from './validate-with-schema.js';

/** Cursor-list query: `limit` 1-100, `order` asc|desc, `before`/`after` cursor ids. */
export const listQuerySchema = z.object({
  // The spec: "limit | integer (documented as string) | 1 to 100": a query string carries "20" as well as 20.
  limit: z
    .union([integerBetween(1, 100), z.string().regex(/^\d+$/).transform(Number).pipe(integerBetween(1, 100))])
    .optional(),
  order: z.enum(['asc', 'desc']).optional(),
  before: z.string().optional(),
  after: z.string().optional(),
});

/** A cursor-list query as the schema accepts it. */
export type ListQueryInput = z.input<typeof listQuerySchema>;

/**
 * Throws `RequestValidationError` when a cursor-list query breaks a rule.
 * @param operation names the list in the error, e.g. `vectorStores.files.list`.
 */
export function validateListQuery(query: unknown, operation = 'list'): void {
  validateWithSchema(listQuerySchema, operation, query ?? {});
}
