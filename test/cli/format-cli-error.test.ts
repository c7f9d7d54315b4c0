import { describe, expect, it } from 'vitest';
import { CliUsageError } from '../../src/cli/errors.js';
import { formatCliError } from '../../src/cli/format-cli-error.js';
import { createAPIError } from '../../src/core/errors.js';

describe('formatCliError', () => {
  describe('when the service answers with an error status', () => {
    it.each([
      [
        401,
        'invalid_api_key',
        /^error: the service rejected the API key \(401 invalid_api_key\); check SVC_API_KEY/,
      ],
      [402, 'quota_exceeded', /^error: the account cannot pay for this request \(402 quota_exceeded\): /],
      [429, 'rate_limit', /^error: rate limited by the service \(429 rate_limit\): .*try again later/],
      [451, 'content_filter', /^error: the request or the answer was blocked by content moderation \(451/],
      [503, 'overloaded', /^error: the service failed \(503 overloaded\): Busy; try again later/],
    ])('should explain %i in one line with exit code 1', (status, type, pattern) => {
      const error = createAPIError(status, JSON.stringify({ error: { message: 'Busy', type } }), {
        'x-trace-id': 'trace-1',
      });
      const formatted = formatCliError(error, {});
      expect(formatted.line).toMatch(pattern);
      expect(formatted.line).toMatch(/\[trace id trace-1\]$/);
      expect(formatted.line).not.toContain('\n');
      expect(formatted.exitCode).toBe(1);
      expect(formatted.json.error).toMatchObject({ status, type, requestId: 'trace-1' });
    });
  });

  describe('when a message carries the API key or several lines', () => {
    it('should mask the key and keep one line', () => {
      const key = 'sk-secret-12345';
      const formatted = formatCliError(new Error(`first line with ${key}\n    at stack frame\nmore`), {
        SVC_API_KEY: key,
      });
      expect(formatted.line).toBe('error: first line with ***; at stack frame; more');
      expect(JSON.stringify(formatted.json)).not.toContain(key);
    });
  });

  describe('when the command line is wrong', () => {
    it('should point to the help of the command and exit 2', () => {
      const formatted = formatCliError(new CliUsageError('missing argument', 'kb add'), {});
      expect(formatted).toMatchObject({
        line: 'error: missing argument (see: svc-agents kb add --help)',
        exitCode: 2,
      });
    });
  });

  describe('when something that is not an Error is thrown', () => {
    it('should still print one line', () => {
      expect(formatCliError('boom', {}).line).toBe('error: boom');
    });
  });
});
