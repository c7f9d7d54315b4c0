import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { normalizeClientOptions } from '../../src/transport/normalize-client-options.js';

const env = { SVC_API_KEY: 'sk-env-key-123', SVC_BASE_URL: 'https://api.example.com' };

describe('normalizeClientOptions', () => {
  describe('when options are omitted', () => {
    it('should read the environment and apply the defaults', () => {
      expect(normalizeClientOptions({}, env)).toEqual({
        apiKey: 'sk-env-key-123',
        baseURL: 'https://api.example.com',
        timeout: 60_000,
        maxRetries: 2,
        defaultHeaders: {},
      });
    });
  });

  describe('when options are given', () => {
    it('should prefer them over the environment', () => {
      const options = normalizeClientOptions(
        { apiKey: 'sk-own', baseURL: 'http://127.0.0.1:9', maxRetries: 0 },
        env,
      );
      expect(options).toMatchObject({ apiKey: 'sk-own', baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
    });
  });

  describe('when the base URL ends with / or /v1', () => {
    it.each([
      ['https://api.example.com/', 'https://api.example.com'],
      ['https://api.example.com/v1', 'https://api.example.com'],
      ['https://api.example.com/v1/', 'https://api.example.com'],
      ['https://proxy.example.com/svc/v1//', 'https://proxy.example.com/svc'],
      ['https://api.example.com/v10', 'https://api.example.com/v10'],
    ])('should turn %s into the service root %s', (baseURL, expected) => {
      expect(normalizeClientOptions({ baseURL }, env).baseURL).toBe(expected);
    });
  });

  describe('when the API key is missing', () => {
    it('should name the option and the variable to set', () => {
      const run = () => normalizeClientOptions({}, { SVC_BASE_URL: 'https://api.example.com' });
      expect(run).toThrow(ConfigurationError);
      expect(run).toThrow(/apiKey: .*SVC_API_KEY/);
    });
  });

  describe('when the base URL is missing', () => {
    it('should name the option and the variable to set', () => {
      expect(() => normalizeClientOptions({}, { SVC_API_KEY: 'sk-x' })).toThrow(/baseURL: .*SVC_BASE_URL/);
    });
  });

  describe('when a value breaks a rule', () => {
    it.each([
      [{ baseURL: 'api.example.com' }, /baseURL: must be an absolute http\(s\) URL/],
      [{ baseURL: 'ftp://api.example.com' }, /baseURL: must use http or https/],
      [{ timeout: 0 }, /timeout: must be a positive number/],
      [{ maxRetries: -1 }, /maxRetries: must be an integer >= 0/],
      [{ maxRetries: 1.5 }, /maxRetries: must be an integer >= 0/],
    ])('should reject %o', (options, message) => {
      expect(() => normalizeClientOptions(options, env)).toThrow(message);
    });
  });

  describe('when the key is pasted into baseURL', () => {
    it('should not quote it in the error', () => {
      const secret = 'sk-very-secret-key';
      try {
        normalizeClientOptions({ apiKey: secret, baseURL: secret }, {});
        expect.unreachable();
      } catch (error) {
        expect(String((error as Error).message)).not.toContain(secret);
      }
    });
  });
});
