import { describe, expect, it } from 'vitest';
import { validateResourceId } from '../../../src/api/schemas/validate-resource-id.js';
import { validationErrorOf } from '../../helpers/validation-error-of.js';

describe('validateResourceId', () => {
  describe('when the id is a non-empty string', () => {
    it('should pass', () => {
      expect(() => validateResourceId('vs_1', 'vector_store_id', 'vectorStores.retrieve')).not.toThrow();
    });
  });

  describe('when the id is missing, empty or not a string', () => {
    it.each([
      [undefined, 'vector_store_id: required'],
      ['', 'vector_store_id: must not be empty'],
      [42, 'vector_store_id: must be a string'],
    ])('should refuse %j naming the parameter', (value, message) => {
      const error = validationErrorOf(() =>
        validateResourceId(value, 'vector_store_id', 'vectorStores.retrieve'),
      );
      expect(error.message).toBe(message);
      expect(error.operation).toBe('vectorStores.retrieve');
    });
  });
});
