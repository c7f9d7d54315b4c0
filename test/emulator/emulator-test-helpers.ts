import { request } from 'undici';
import { pcmToWav } from '../../src/emulator/media/wav.js';

/** A raw HTTP answer: status, headers and the body as text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON (throws when it is not JSON). */
  json<T = Record<string, unknown>>(): T;
}

/** Calls the emulator with undici, JSON body, bearer key unless `headers.authorization` is given. */
export async function call(
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

/** A WAV file of `seconds` of silence at 24 kHz mono 16-bit. */
export function wavOfSeconds(seconds: number): Buffer {
  return pcmToWav(Buffer.alloc(Math.round(seconds * 24_000) * 2));
}

/** An MP3 byte stream of `frames` MPEG-1 layer III frames (128 kbps, 44.1 kHz): 1152 samples each. */
export function mp3OfFrames(frames: number, withId3 = true): Buffer {
  const header = Buffer.from([0xff, 0xfb, 0x90, 0x00]); // MPEG-1 L3, 128 kbps, 44100 Hz, no padding
  const frameLength = Math.floor((144 * 128_000) / 44_100);
  const frame = Buffer.alloc(frameLength);
  header.copy(frame);
  const id3 = withId3
    ? Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 10, ...new Array(10).fill(0)])
    : Buffer.alloc(0);
  return Buffer.concat([id3, ...Array.from({ length: frames }, () => frame)]);
}

/** Polls until `check` resolves true, or fails after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition not reached in time');
}
