import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  validateFileListQuery,
  validateFileUploadParams,
} from '../../../src/api/schemas/file-params-schemas.js';
import { issueLinesOf, validationErrorOf } from '../../helpers/validation-error-of.js';

describe('validateFileUploadParams', () => {
  describe('when the upload is valid', () => {
    it.each(['file-extract', 'retrieval-text', 'retrieval-image', 'storage'])(
      'should pass purpose %s',
      (purpose) => {
        expect(() => validateFileUploadParams({ file: Buffer.from('hello'), purpose })).not.toThrow();
      },
    );

    it('should pass a path, a Blob, a Node stream, a web stream or a remote url', () => {
      for (const file of ['./report.pdf', new Blob(['x']), Readable.from(['x']), new Blob(['x']).stream()]) {
        expect(() =>
          validateFileUploadParams({ file, purpose: 'file-extract', filename: 'r.pdf' }),
        ).not.toThrow();
      }
      expect(() =>
        validateFileUploadParams({ url: 'https://example.com/r.pdf', purpose: 'file-extract' }),
      ).not.toThrow();
    });
  });

  describe('when a rule is broken', () => {
    it('should explain that the retrieval purpose is withdrawn', () => {
      expect(issueLinesOf(() => validateFileUploadParams({ file: 'a.txt', purpose: 'retrieval' }))).toEqual([
        'purpose: "retrieval" is withdrawn by the service (its documentation says so; the spec only lists it among purposes seen on files); use "retrieval-text" or "retrieval-image"',
      ]);
    });

    it('should list the purposes for an unknown one and require a purpose', () => {
      expect(issueLinesOf(() => validateFileUploadParams({ file: 'a.txt', purpose: 'fine-tune' }))).toEqual([
        'purpose: must be one of "file-extract", "retrieval-text", "retrieval-image" or "storage"',
      ]);
      expect(issueLinesOf(() => validateFileUploadParams({ file: 'a.txt' }))).toEqual([
        'purpose: required, must be one of "file-extract", "retrieval-text", "retrieval-image" or "storage"',
      ]);
    });

    it('should require a file (or url) of a supported kind', () => {
      const error = validationErrorOf(() => validateFileUploadParams({ purpose: 'storage' }));
      expect(error.message).toBe('file: required (or give url)');
      expect(error.operation).toBe('files.upload');
      expect(issueLinesOf(() => validateFileUploadParams({ file: 42, purpose: 'storage' }))).toEqual([
        'file: must be a file path, a Buffer, a Blob or a readable stream',
      ]);
      expect(issueLinesOf(() => validateFileUploadParams({ url: 'ftp://x/y', purpose: 'storage' }))).toEqual([
        'url: must be an http(s) address',
      ]);
    });

    it('should refuse in-memory files over the purpose limit', () => {
      const big = new Blob([new Uint8Array(64 * 1024 * 1024 + 1)]);
      expect(issueLinesOf(() => validateFileUploadParams({ file: big, purpose: 'retrieval-text' }))).toEqual([
        'file: must be at most 64 MB for purpose "retrieval-text"',
      ]);
      expect(() => validateFileUploadParams({ file: big, purpose: 'storage' })).not.toThrow();
    });
  });
});

describe('validateFileListQuery', () => {
  describe('when the purpose filter is given or not', () => {
    it('should pass any purpose string, including the older retrieval', () => {
      expect(() => validateFileListQuery(undefined)).not.toThrow();
      expect(() => validateFileListQuery({ purpose: 'retrieval' })).not.toThrow();
    });

    it('should refuse an empty or non-string purpose', () => {
      expect(issueLinesOf(() => validateFileListQuery({ purpose: '' }))).toEqual([
        'purpose: must not be empty',
      ]);
      expect(issueLinesOf(() => validateFileListQuery({ purpose: 3 }))).toEqual([
        'purpose: must be a string',
      ]);
    });
  });
});
