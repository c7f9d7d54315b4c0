import type { IncomingMessage } from 'node:http';
import { readCappedNodeBody } from '../core/read-capped-node-body.js';
import { EmulatorHttpError } from './errors.js';

// 128 MB storage uploads plus multipart framing.
const MAX_MULTIPART_BYTES = 129 * 1024 * 1024;
// JSON bodies: a 10 MB image reference as a base64 data URI fits with room to spare.
const MAX_JSON_BYTES = 32 * 1024 * 1024;
// Scripts and fault lists are small.
const MAX_CONTROL_BYTES = 4 * 1024 * 1024;
const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/i;

/** The request's URL; a 400 when its target is no path (`//`, `*`, an absolute URL). */
export function requestURL(target: string | undefined): URL {
  if (target?.startsWith('/')) {
    try {
      return new URL(`http://emulator${target}`);
    } catch {
      // Falls through to the 400.
    }
  }
  throw new EmulatorHttpError(400, 'request_params_invalid', `request target ${target}: must be a path`);
}

/**
 * The control routes script the next completions and show recorded prompts, so only this machine may use
 * them: a Host that is not loopback (DNS rebinding) or the bound address, or an Origin of another site
 * (a web page), is refused; a body must be `application/json` (a page can send `text/plain` without a
 * preflight).
 */
export function checkControlRequest(req: IncomingMessage, boundHost: string): void {
  const host = req.headers.host ?? '';
  const bound = boundHost.includes(':') ? `[${boundHost}]` : boundHost;
  const sameAsBound = host === bound || host.startsWith(`${bound}:`);
  if (!LOOPBACK_HOST.test(host) && !(sameAsBound && !['0.0.0.0', '[::]'].includes(bound)))
    throw new EmulatorHttpError(
      403,
      'forbidden',
      `Host ${host}: the control routes answer local requests only`,
    );
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`)
    throw new EmulatorHttpError(403, 'forbidden', `Origin ${origin}: the control routes refuse other sites`);
  const type = String(req.headers['content-type'] ?? '');
  const hasBody =
    Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !/^application\/json\b/i.test(type))
    throw new EmulatorHttpError(
      415,
      'unsupported_content_type',
      'content-type: control routes take application/json',
    );
}

/** The most body bytes a request may send: uploads are multipart, everything else JSON. */
export function maxBodyBytes(req: IncomingMessage, control: boolean): number {
  if (control) return MAX_CONTROL_BYTES;
  return String(req.headers['content-type'] ?? '').startsWith('multipart/')
    ? MAX_MULTIPART_BYTES
    : MAX_JSON_BYTES;
}

/** Reads the body, counting bytes: past `maxBytes` (declared or sent) it stops reading and throws a 413. */
export async function readCappedBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const body = await readCappedNodeBody(req, maxBytes);
  if (body === undefined) throw new EmulatorHttpError(413, 'request_too_large', 'Request body too large');
  return body;
}

/** JSON bodies nest no deeper than this (a JSON Schema of a structured output stays far below it). */
export const MAX_JSON_DEPTH = 100;

/** True when parsed JSON nests deeper than `max` arrays and objects; walks without recursion. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
