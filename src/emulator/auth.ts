import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { EmulatorHttpError } from './errors.js';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks the key: `Authorization: Bearer <key>` everywhere, and `x-api-key` too on the Messages endpoints,
 * which Messages SDKs authenticate that way. Throws the service's exact 401.
 */
export function checkAuth(headers: IncomingHttpHeaders, path: string, apiKey: string): void {
  const bearer = /^Bearer\s+(.+)$/i.exec(String(headers.authorization ?? ''))?.[1]?.trim();
  if (bearer !== undefined && same(bearer, apiKey)) return;
  const messages = /^(\/svc_plan)?\/v1\/messages(\/|$)/.test(path);
  const headerKey = headers['x-api-key'];
  if (messages && typeof headerKey === 'string' && same(headerKey, apiKey)) return;
  throw new EmulatorHttpError(401, 'invalid_api_key', 'Incorrect API key provided');
}
