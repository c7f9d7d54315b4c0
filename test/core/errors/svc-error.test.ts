import { describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  RateLimitError,
  SvcError,
} from '../../../src/core/errors.js';

/** Stands in for the same classes loaded from a second copy of the package. */
function foreignCopy() {
  const marker = Symbol.for('svc-agents.error');
  class OtherSvcError extends Error {
    [marker] = true;
  }
  Object.defineProperty(OtherSvcError, 'name', { value: 'SvcError' });
  class RateLimitErrorCopy extends OtherSvcError {}
  Object.defineProperty(RateLimitErrorCopy, 'name', { value: 'RateLimitError' });
  return new RateLimitErrorCopy('429 from another copy');
}

describe('SvcError.isInstance', () => {
  describe('when called on a subclass', () => {
    it('should accept only that class and its subclasses', () => {
      const timeout = new APITimeoutError(100);
      expect(APITimeoutError.isInstance(timeout)).toBe(true);
      expect(APIConnectionError.isInstance(timeout)).toBe(true);
      expect(APIError.isInstance(timeout)).toBe(true);
      expect(SvcError.isInstance(timeout)).toBe(true);
      expect(APIUserAbortError.isInstance(timeout)).toBe(false);
      expect(RateLimitError.isInstance(timeout)).toBe(false);
    });
  });

  describe('when the error comes from another copy of the package', () => {
    it('should still recognise it by marker and class name', () => {
      const foreign = foreignCopy();
      expect(foreign instanceof RateLimitError).toBe(false);
      expect(RateLimitError.isInstance(foreign)).toBe(true);
      expect(SvcError.isInstance(foreign)).toBe(true);
      expect(APIUserAbortError.isInstance(foreign)).toBe(false);
    });
  });

  describe('when given something else', () => {
    it('should say no', () => {
      expect(SvcError.isInstance(new Error('x'))).toBe(false);
      expect(SvcError.isInstance(null)).toBe(false);
      expect(SvcError.isInstance('429')).toBe(false);
    });
  });
});

describe('APIError retryability', () => {
  it.each([
    [new APIConnectionError(), true],
    [new APITimeoutError(5), true],
    [new APIUserAbortError(), false],
    [new APIError('x', { status: 408 }), true],
    [new APIError('x', { status: 422 }), false],
  ] as const)('should mark %s as isRetryable=%s', (error, retryable) => {
    expect(error.isRetryable).toBe(retryable);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ name: error.name, isRetryable: retryable });
  });
});
