import type { ChatCompletion, ChatCompletionChunk, Usage } from '../api/types/chat.js';

/**
 * A fault the emulator injects into a response. Combine fields freely: e.g. `{ latencyMs: 200, status: 503 }`.
 * In `startEmulator({ faults })` it may be narrowed to some requests with `path`/`method`, and `times`
 * bounds how many requests it hits.
 */
export interface EmulatorFault {
  /** Answer with this HTTP status instead of the real answer. */
  status?: number;
  /** Body for `status`; default `{"error":{"message":"Emulated fault","type":<type for status>}}`. */
  body?: unknown;
  /** Extra response headers, e.g. `{ 'Retry-After': '1' }`. */
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  latencyMs?: number;
  /** Write only this many bytes of the response body, then destroy the connection. */
  cutAfterBytes?: number;
  /** Replace the second stream event (or the JSON body) with invalid JSON. */
  malformedChunk?: boolean;
  /** Wait this long between stream events (or between pieces of a JSON body). */
  dripMs?: number;
  /** Write only this many bytes of the response body, then send nothing more (the connection stays open). */
  stallAfterBytes?: number;
  /** Answer a streamed request with `200 text/html` (a proxy's page) instead of an event stream. */
  notEventStream?: boolean;
  /** Quote the caller's API key in the answer: in the error body of `status`, or as an error event mid-stream. */
  echoKey?: boolean;
  /** Apply to this many matching requests only. @default unlimited (options), 1 per header value when set */
  times?: number;
  /** Only requests whose path contains this string (or matches this RegExp); `startEmulator({ faults })` only. */
  path?: string | RegExp;
  /** Only requests with this method; `startEmulator({ faults })` only. */
  method?: string;
  /** Only requests whose JSON body names this model (e.g. to fail one model); `startEmulator({ faults })` only. */
  model?: string;
  /**
   * Enforce a budget instead of failing every matching request: requests beyond it within the window get a
   * real 429 with `Retry-After` and `retry-after-ms` (the wait until the window has room). `startEmulator({ faults })` only.
   * @example { path: '/chat/completions', rateLimit: { requests: 600, tokens: 200_000 } }
   */
  rateLimit?: EmulatorRateLimit;
}

/** The budget of a `rateLimit` fault, over a sliding window. */
export interface EmulatorRateLimit {
  /** Requests admitted per window. @default unlimited */
  requests?: number;
  /** Prompt tokens (as the emulator counts them) admitted per window. @default unlimited */
  tokens?: number;
  /** The window, in milliseconds: 60_000 makes the budgets RPM and TPM. @default 60_000 */
  windowMs?: number;
}

/** A scripted tool call; `arguments` may be an object (it is JSON-encoded) and `id` is generated when absent. */
export interface ScriptedToolCall {
  id?: string;
  type?: 'function';
  function: { name: string; arguments?: string | Record<string, unknown> };
}

/**
 * One queued answer of scripted mode, consumed first-in first-out by chat-completion requests:
 * - `{ message, finish_reason?, usage? }` is rendered as a completion, or as a stream in the observed shape;
 * - `{ completion }` is merged over a default completion (streamed requests get it in the observed shape);
 * - `{ chunks }` are sent verbatim as `data:` events, then `data: [DONE]`;
 * - `{ error }` answers that status, body (default the service's error body) and headers;
 * - `{ fault }` applies a fault to the request, which the default model then answers.
 */
export type ScriptedAnswer =
  | {
      message: {
        content?: string | null;
        tool_calls?: ScriptedToolCall[];
        reasoning?: string;
      };
      finish_reason?: string | null;
      usage?: Partial<Usage>;
      /** A fault applied to this scripted answer (cut, stall, malformed chunk, drip, ...). */
      fault?: EmulatorFault;
    }
  | { completion: Partial<Omit<ChatCompletion, 'choices'>> & { choices?: unknown[]; message?: unknown } }
  | { chunks: Array<ChatCompletionChunk | Record<string, unknown> | string> }
  | { error: { status: number; body?: unknown; headers?: Record<string, string> } }
  | { fault: EmulatorFault };

/** A request the emulator received (API requests only, not `/__emulator/*`), without credentials. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Query parameters. */
  query: Record<string, string>;
  /** Headers, lower-cased, without `authorization` and `x-api-key`. */
  headers: Record<string, string>;
  /** Parsed JSON body, the multipart fields (file content replaced by its size), or undefined. */
  body: unknown;
}

/** How the default model behaves. */
export interface EmulatorModelOptions {
  /**
   * `finish_reason` of tool turns. The service's docs show non-streamed tool turns ending in `stop`;
   * streamed ones end in `tool_calls` here.
   * @default { stream: 'tool_calls', nonStream: 'stop' }
   */
  toolCallFinishReason?: { stream?: string; nonStream?: string };
  /** Models that emit reasoning even without `reasoning_effort`. @default svc-3.5-flash, -2603, svc-3.7-flash, svc-audio-r1.1 */
  reasoningModels?: string[];
  /** Words per streamed content chunk. @default 3 */
  wordsPerChunk?: number;
  /**
   * Context length per model, over the shared table (`defaultContextWindows`): longer inputs get the
   * service's 400 "Input too long". E.g. `{ 'svc-3.5-flash': 4096 }` to test overflow with short inputs.
   */
  contextWindows?: Record<string, number>;
}

/** Options of `startEmulator`. */
export interface EmulatorOptions {
  /** Port to listen on; 0 picks a free one. @default 0 */
  port?: number;
  /** Interface to bind. @default '127.0.0.1' */
  host?: string;
  /** The only API key accepted. @default 'sk-emulator' */
  apiKey?: string;
  /** Persist files, vector stores and voices here (atomic writes) and reload them on start. */
  dataDir?: string;
  /** Faults applied to matching API requests. */
  faults?: EmulatorFault[];
  /** Delay of the file status change `processed` -> `success`. @default 200 */
  parseDelayMs?: number;
  /** Default-model behaviour. */
  model?: EmulatorModelOptions;
}

/** A running emulator. */
export interface Emulator {
  /** Service root, e.g. `http://127.0.0.1:8787` (clients append `/v1/...`). */
  readonly baseURL: string;
  /** The key the emulator accepts (not enumerable, so it stays out of logs and JSON). */
  readonly apiKey: string;
  /** Port actually bound. */
  readonly port: number;
  /** Queues scripted answers for the next chat-completion requests. */
  script(answers: ScriptedAnswer[]): void;
  /** Scripted answers still queued (none left means every one was consumed). */
  scriptedRemaining(): number;
  /** Requests received so far (the most recent 10,000), oldest first. */
  requests(): RecordedRequest[];
  /** Clears scripted answers, recorded requests and runtime faults (stored data stays). */
  reset(): void;
  /** Replaces the runtime faults (those given to `startEmulator` included). */
  setFaults(faults: EmulatorFault[]): void;
  /** Stops the server and closes open connections. */
  close: () => Promise<void>;
}
