import { describe, expect, it } from 'vitest';
import {
  validateVectorStoreCreateParams,
  validateVectorStoreFilesCreateParams,
} from '../../../src/api/schemas/vector-store-params-schemas.js';
import { issueLinesOf, validationErrorOf } from '../../helpers/validation-error-of.js';

describe('validateVectorStoreCreateParams', () => {
  describe('when the name and type are valid', () => {
    it('should pass letters, digits and underscores, with text or image type', () => {
      expect(() => validateVectorStoreCreateParams({ name: 'food_calorie_2' })).not.toThrow();
      expect(() => validateVectorStoreCreateParams({ name: '2024_docs', type: 'image' })).not.toThrow();
      expect(() => validateVectorStoreCreateParams({ name: 'Docs', type: 'text' })).not.toThrow();
    });
  });

  describe('when the name breaks the rule', () => {
    it.each([
      ['_private', 'name: must not start with an underscore'],
      ['food-calorie', 'name: may contain only English letters, digits and underscore'],
      ['café', 'name: may contain only English letters, digits and underscore'],
      ['two words', 'name: may contain only English letters, digits and underscore'],
      ['', 'name: must not be empty'],
    ])('should refuse %j', (name, line) => {
      expect(issueLinesOf(() => validateVectorStoreCreateParams({ name }))).toEqual([line]);
    });

    it('should require the name and refuse an unknown type', () => {
      const error = validationErrorOf(() => validateVectorStoreCreateParams({ type: 'video' }));
      expect(error.message.split('\n')).toEqual(['name: required', 'type: must be "text" or "image"']);
      expect(error.operation).toBe('vectorStores.create');
    });
  });
});

describe('validateVectorStoreFilesCreateParams', () => {
  describe('when the files are valid', () => {
    it('should pass file ids with optional descriptions of up to 255 characters', () => {
      const params = { files: [{ file_id: 'file-1' }, { file_id: 'file-2', description: 'd'.repeat(255) }] };
      expect(() => validateVectorStoreFilesCreateParams(params)).not.toThrow();
      expect(() => validateVectorStoreFilesCreateParams(params, { storeType: 'text' })).not.toThrow();
    });
  });

  describe('when a rule is broken', () => {
    it('should require a non-empty files array', () => {
      expect(issueLinesOf(() => validateVectorStoreFilesCreateParams({}))).toEqual(['files: required']);
      expect(issueLinesOf(() => validateVectorStoreFilesCreateParams({ files: [] }))).toEqual([
        'files: must contain at least one file',
      ]);
    });

    it('should require file_id and limit the description to 255 characters', () => {
      const params = { files: [{ description: 'x' }, { file_id: 'f', description: 'd'.repeat(256) }] };
      const error = validationErrorOf(() => validateVectorStoreFilesCreateParams(params));
      expect(error.message.split('\n')).toEqual([
        'files[0].file_id: required',
        'files[1].description: must be at most 255 characters',
      ]);
      expect(error.operation).toBe('vectorStores.files.create');
    });
  });

  describe('when the store holds images', () => {
    it('should require a description for every file', () => {
      const params = {
        files: [
          { file_id: 'a', description: 'A red apple' },
          { file_id: 'b' },
          { file_id: 'c', description: '' },
        ],
      };
      expect(
        issueLinesOf(() => validateVectorStoreFilesCreateParams(params, { storeType: 'image' })),
      ).toEqual([
        'files[1].description: required for image stores',
        'files[2].description: required for image stores',
      ]);
    });
  });
});
