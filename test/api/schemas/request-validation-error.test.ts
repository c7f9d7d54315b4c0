import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../../src/api/errors.js';
import { formatIssuePath } from '../../../src/api/schemas/format-issue-path.js';
import { SvcError } from '../../../src/core/errors.js';

const createError = (codes: Array<'request_params_invalid' | 'unsupported_content_type'>) =>
  new RequestValidationError({
    operation: 'chat.completions.create',
    issues: codes.map((code, index) => ({
      path: `messages[${index}].role`,
      message: 'must be "user"',
      code,
    })),
  });

describe('RequestValidationError', () => {
  describe('when built from issues', () => {
    it('should list one path: rule line per issue', () => {
      const error = createError(['request_params_invalid', 'request_params_invalid']);
      expect(error.message).toBe('messages[0].role: must be "user"\nmessages[1].role: must be "user"');
      expect(error.name).toBe('RequestValidationError');
      expect(error.operation).toBe('chat.completions.create');
      expect(error.issues).toHaveLength(2);
    });

    it('should be an SvcError recognisable across bundles', () => {
      const error = createError(['request_params_invalid']);
      expect(error).toBeInstanceOf(SvcError);
      expect(SvcError.isInstance(error)).toBe(true);
      expect(RequestValidationError.isInstance(error)).toBe(true);
      expect(RequestValidationError.isInstance(new SvcError('other'))).toBe(false);
    });

    it('should serialise its operation, issues and code with JSON.stringify', () => {
      const json = JSON.parse(JSON.stringify(createError(['request_params_invalid'])));
      expect(json).toMatchObject({
        name: 'RequestValidationError',
        operation: 'chat.completions.create',
        code: 'request_params_invalid',
        issues: [{ path: 'messages[0].role', message: 'must be "user"', code: 'request_params_invalid' }],
      });
      expect(inspect(createError(['request_params_invalid']))).toContain('messages[0].role: must be "user"');
    });
  });

  describe('when choosing the service error code', () => {
    it('should be unsupported_content_type only when every issue is a content rule', () => {
      expect(createError(['unsupported_content_type']).code).toBe('unsupported_content_type');
      expect(createError(['unsupported_content_type', 'request_params_invalid']).code).toBe(
        'request_params_invalid',
      );
      expect(createError(['request_params_invalid']).code).toBe('request_params_invalid');
    });
  });
});

describe('formatIssuePath', () => {
  describe('when given zod paths', () => {
    it('should write a.b[0].c notation', () => {
      expect(formatIssuePath(['tools', 0, 'function', 'name'])).toBe('tools[0].function.name');
      expect(formatIssuePath(['messages', 2, 'tool_call_id'])).toBe('messages[2].tool_call_id');
    });

    it('should quote keys that are not identifiers and name the root "request"', () => {
      expect(formatIssuePath(['properties', 'my-prop', 'type'])).toBe('properties["my-prop"].type');
      expect(formatIssuePath([])).toBe('request');
    });
  });
});
