import { describe, expect, it } from 'vitest';
import { validateListQuery } from '../../../src/api/schemas/list-query-schema.js';
import { issueLinesOf, validationErrorOf } from '../../helpers/validation-error-of.js';

describe('validateListQuery', () => {
  describe('when the query is valid or absent', () => {
    it('should pass limits 1 and 100, both orders and cursors', () => {
      expect(() => validateListQuery(undefined)).not.toThrow();
      expect(() => validateListQuery({ limit: 1, order: 'asc', after: 'file-1' })).not.toThrow();
      expect(() => validateListQuery({ limit: 100, order: 'desc', before: 'file-9' })).not.toThrow();
    });
  });

  describe('when a rule is broken', () => {
    it.each([
      [{ limit: 0 }, 'limit: must be an integer between 1 and 100'],
      [{ limit: 101 }, 'limit: must be an integer between 1 and 100'],
      [{ limit: 2.5 }, 'limit: must be an integer between 1 and 100'],
      [{ limit: '0' }, 'limit: must be an integer between 1 and 100'],
      [{ order: 'newest' }, 'order: must be "asc" or "desc"'],
      [{ after: 5 }, 'after: must be a string'],
      [{ before: null }, 'before: must be a string'],
    ])('should refuse %j', (query, line) => {
      expect(issueLinesOf(() => validateListQuery(query))).toEqual([line]);
    });

    it('should name the list operation', () => {
      expect(
        validationErrorOf(() => validateListQuery({ limit: 0 }, 'vectorStores.files.list')).operation,
      ).toBe('vectorStores.files.list');
    });
  });
});
