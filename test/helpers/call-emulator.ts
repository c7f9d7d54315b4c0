import { request } from 'undici';

/** A raw HTTP answer: status, headers and the body as text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON (throws when it is not JSON). */
  json<T = Record<string, unknown>>(): T;
}

/** Calls the emulator with undici, JSON body, bearer key unless `headers.authorization` is given. */
export async function callEmulator(
  baseURL: string,
  apiKey: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const res = await request(`${baseURL}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: <T>() => JSON.parse(text) as T };
}

/** Uploads bytes as a multipart file. */
export async function upload(
  baseURL: string,
  apiKey: string,
  content: Uint8Array | string,
  purpose: string,
  filename: string,
): Promise<RawResponse> {
  const form = new FormData();
  form.set('purpose', purpose);
  form.set('file', new Blob([content]), filename);
  const res = await fetch(`${baseURL}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  const text = await res.text();
  const headers = Object.fromEntries(res.headers);
  return { status: res.status, headers, text, json: <T>() => JSON.parse(text) as T };
}

/** Payloads of the `data:` events of an SSE body, `[DONE]` included. */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .map((event) => event.trim())
    .filter(Boolean)
    .map((event) => event.replace(/^data: /, ''));
}
