import { ChatRequestError } from './web-error.js';

/** The largest request body the chat routes read, in bytes (a `useChat` request carries the whole chat). */
export const defaultMaxBodyBytes = 4 * 1024 * 1024;

/** The 413 answered when a body passes `maxBytes`. */
export function bodyTooLargeError(maxBytes: number): ChatRequestError {
  return new ChatRequestError({ status: 413, message: `body: larger than the limit of ${maxBytes} bytes` });
}

/**
 * Reads a body whole, counting bytes as they arrive: past `maxBytes` it stops reading and throws a 413,
 * so an oversized body is never buffered. A `Content-Length` already over the limit fails before reading.
 */
export async function readBodyBytes(
  source: AsyncIterable<Uint8Array> | null,
  maxBytes: number,
  contentLength?: string | null,
): Promise<Uint8Array> {
  if (contentLength && Number(contentLength) > maxBytes) throw bodyTooLargeError(maxBytes);
  if (source === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += chunk.byteLength;
    if (size > maxBytes) throw bodyTooLargeError(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The request body as a JSON object, or a 400 naming what is wrong (a 413 past `maxBytes`). */
export async function readJsonObject(
  request: Request,
  maxBytes = defaultMaxBodyBytes,
): Promise<Record<string, unknown>> {
  const bytes = await readBodyBytes(request.body, maxBytes, request.headers.get('content-length'));
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new ChatRequestError({ status: 400, message: 'body: must be a JSON object' });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ChatRequestError({ status: 400, message: 'body: must be a JSON object' });
  return body as Record<string, unknown>;
}
