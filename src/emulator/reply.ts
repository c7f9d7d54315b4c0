import type { EmulatorFault } from './types.js';

/** What a route answers; the server writes it, applying any fault on the way. */
export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string>; fault?: EmulatorFault }
  | {
      kind: 'bytes';
      status: number;
      body: Buffer;
      contentType: string;
      headers?: Record<string, string>;
      fault?: EmulatorFault;
    }
  | {
      kind: 'sse';
      /** `data:` payloads, or named events (`event:` line then `data:`). */
      events: Array<string | { event: string; data: string }>;
      /** Append `data: [DONE]` (chat streams). @default true */
      done?: boolean;
      fault?: EmulatorFault;
      headers?: Record<string, string>;
    };

/** A JSON reply, status 200 by default. */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Reply {
  return headers ? { kind: 'json', status, body, headers } : { kind: 'json', status, body };
}

/** A server-sent-events reply: each string is the payload of one `data:` event; `[DONE]` is appended. */
export function sse(events: string[]): Reply {
  return { kind: 'sse', events };
}
