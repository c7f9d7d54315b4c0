import { ConfigurationError } from '../core/errors.js';
import { type ClientOptions, defaultClientOptions, type NormalizedClientOptions } from './client-options.js';

/**
 * Checks client options once and fills the defaults: `apiKey` from `SVC_API_KEY`, `baseURL` from `SVC_BASE_URL`
 * (a trailing `/` or `/v1` removed so paths are never doubled), `timeout` 60 s per attempt, `maxRetries` 2.
 * Throws {@link ConfigurationError} naming the option (and the variable to set) before any request.
 */
export function normalizeClientOptions(
  options: ClientOptions = {},
  env: Record<string, string | undefined> = process.env,
): NormalizedClientOptions {
  const {
    apiKey = env.SVC_API_KEY,
    baseURL = env.SVC_BASE_URL,
    timeout = defaultClientOptions.timeout,
    maxRetries = defaultClientOptions.maxRetries,
    defaultHeaders = {},
    dispatcher,
    maxStreamEventBytes,
    secrets,
    clock,
  } = options;

  if (typeof apiKey !== 'string' || apiKey.trim() === '') {
    throw new ConfigurationError({
      field: 'apiKey',
      rule: 'missing: pass `apiKey` to the client or set the SVC_API_KEY environment variable',
    });
  }
  if (typeof baseURL !== 'string' || baseURL.trim() === '') {
    throw new ConfigurationError({
      field: 'baseURL',
      rule: 'missing: pass `baseURL` (the service root, e.g. https://api.example.com) or set the SVC_BASE_URL environment variable',
    });
  }
  if (typeof timeout !== 'number' || !(timeout > 0) || !Number.isFinite(timeout)) {
    throw new ConfigurationError({ field: 'timeout', rule: 'must be a positive number of milliseconds' });
  }
  if (typeof maxRetries !== 'number' || !Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new ConfigurationError({ field: 'maxRetries', rule: 'must be an integer >= 0' });
  }

  if (
    maxStreamEventBytes !== undefined &&
    (typeof maxStreamEventBytes !== 'number' ||
      !Number.isInteger(maxStreamEventBytes) ||
      maxStreamEventBytes < 1)
  ) {
    throw new ConfigurationError({
      field: 'maxStreamEventBytes',
      rule: 'must be a positive integer number of bytes',
    });
  }

  if (
    secrets !== undefined &&
    (!Array.isArray(secrets) || secrets.some((secret) => typeof secret !== 'string'))
  ) {
    throw new ConfigurationError({ field: 'secrets', rule: 'must be an array of strings' });
  }

  if (
    clock !== undefined &&
    (typeof clock !== 'object' || typeof clock?.now !== 'function' || typeof clock?.sleep !== 'function')
  ) {
    throw new ConfigurationError({ field: 'clock', rule: 'must have now() and sleep(ms, signal) functions' });
  }

  let normalizedBaseURL: string;
  try {
    normalizedBaseURL = normalizeBaseURL(baseURL);
  } catch (error) {
    // A key pasted into the wrong field must not end up quoted in the message.
    if (error instanceof ConfigurationError && error.message.includes(apiKey.trim())) {
      throw new ConfigurationError({ field: 'baseURL', rule: 'must be an absolute http(s) URL' });
    }
    throw error;
  }
  const normalized: NormalizedClientOptions = {
    apiKey: apiKey.trim(),
    baseURL: normalizedBaseURL,
    timeout,
    maxRetries,
    defaultHeaders: { ...defaultHeaders },
  };
  if (dispatcher !== undefined) normalized.dispatcher = dispatcher;
  if (maxStreamEventBytes !== undefined) normalized.maxStreamEventBytes = maxStreamEventBytes;
  if (secrets !== undefined) normalized.secrets = [...secrets];
  if (clock !== undefined) normalized.clock = clock;
  return normalized;
}

/** `https://host/v1/` -> `https://host`: the service root that versioned paths (`/v1/...`) are appended to. */
export function normalizeBaseURL(baseURL: string): string {
  let url: URL;
  try {
    url = new URL(baseURL.trim());
  } catch {
    throw new ConfigurationError({
      field: 'baseURL',
      rule: `must be an absolute http(s) URL, got "${baseURL}"`,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigurationError({ field: 'baseURL', rule: `must use http or https, got "${url.protocol}"` });
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigurationError({ field: 'baseURL', rule: 'must not contain a query string or fragment' });
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${url.origin}${path}`;
}
