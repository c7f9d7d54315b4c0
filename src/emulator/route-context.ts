import type { IncomingHttpHeaders } from 'node:http';
import type { ScriptQueue } from './script-queue.js';
import type { EmulatorState } from './state.js';
import type { EmulatorModelOptions } from './types.js';

/** Generated images the emulator serves at `/__emulator/images/<id>.png`. */
export type ImageCache = Map<string, Buffer>;

/** Everything a route handler gets. */
export interface RouteContext {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Raw body bytes. */
  raw: Buffer;
  /** Parsed JSON body (undefined when there is none or it is not JSON). */
  body: unknown;
  /** Path parameters of the matched route. */
  params: Record<string, string>;
  /** `plan` under `/svc_plan/v1`. */
  channel: 'default' | 'plan';
  state: EmulatorState;
  script: ScriptQueue;
  images: ImageCache;
  baseURL: string;
  model: EmulatorModelOptions;
  parseDelayMs: number;
}

/** A route handler. */
export type RouteHandler = (
  ctx: RouteContext,
) => import('./reply.js').Reply | Promise<import('./reply.js').Reply>;
