import { describe, expect, it } from 'vitest';
import { APIError, createAPIError, InternalServerError } from '../../../src/core/errors.js';

describe('createAPIError', () => {
  describe('when the body is the service error shape', () => {
    it('should take message, type and the trace id', () => {
      const error = createAPIError(
        400,
        '{"error":{"message":"Unrecognized chat message.","type":"request_params_invalid"}}',
        new Headers({ 'X-Trace-Id': 'abc' }),
      );
      expect(error).toMatchObject({
        status: 400,
        type: 'request_params_invalid',
        requestId: 'abc',
        message: '400 request_params_invalid: Unrecognized chat message.',
        body: { error: { message: 'Unrecognized chat message.', type: 'request_params_invalid' } },
      });
    });
  });

  describe('when the JSON has no error message', () => {
    it('should quote the JSON', () => {
      expect(createAPIError(422, '{"detail":"nope"}').message).toBe(
        '422 Unprocessable Entity: {"detail":"nope"}',
      );
    });
  });

  describe('when the body is long plain text', () => {
    it('should quote a bounded snippet', () => {
      const error = createAPIError(503, `Service Unavailable ${'x'.repeat(5000)}`);
      expect(error).toBeInstanceOf(InternalServerError);
      expect(error.message.length).toBeLessThan(400);
      expect(error.message.startsWith('503 Service Unavailable: Service Unavailable xxx')).toBe(true);
    });
  });

  describe('when the status has no subclass', () => {
    it('should build a plain APIError', () => {
      const error = createAPIError(418, '', { 'x-trace-id': ['t1', 't2'] });
      expect(error.constructor).toBe(APIError);
      expect(error.message).toBe("418 I'm a Teapot (empty response body)");
      expect(error.requestId).toBe('t1, t2');
    });
  });
});
