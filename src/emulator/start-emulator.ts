import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { checkAuth } from './auth.js';
import { EmulatorHttpError, errorBody } from './errors.js';
import { FaultBook, sleep } from './faults.js';
import { json, type Reply } from './reply.js';
import {
  checkControlRequest,
  MAX_JSON_DEPTH,
  maxBodyBytes,
  nestsDeeperThan,
  readCappedBody,
  requestURL,
} from './request-guards.js';
import type { ImageCache, RouteContext } from './route-context.js';
import { matchRoute } from './router.js';
import { controlRoute } from './routes/control.js';
import { ScriptQueue } from './script-queue.js';
import { EmulatorState } from './state.js';
import type { Emulator, EmulatorFault, EmulatorOptions, RecordedRequest, ScriptedAnswer } from './types.js';
import { faultReply, writeReply } from './write-reply.js';

const HIDDEN_HEADERS = new Set(['authorization', 'x-api-key']);
// A long-running emulator (the CLI) must not grow without bound: keep the most recent requests only.
const MAX_RECORDED = 10_000;

/**
 * Starts the svc emulator: a local HTTP server answering every operation of the service as the real one does.
 * @example const emu = await startEmulator(); new SvcClient({ baseURL: emu.baseURL, apiKey: emu.apiKey })
 */
export async function startEmulator({
  port = 0,
  host = '127.0.0.1',
  apiKey = 'sk-emulator',
  dataDir,
  faults = [],
  parseDelayMs = 200,
  model = {},
}: EmulatorOptions = {}): Promise<Emulator> {
  const state = new EmulatorState(dataDir);
  const script = new ScriptQueue();
  const faultBook = new FaultBook(faults);
  const images: ImageCache = new Map();
  const recorded: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let traceCounter = 0;
  const tracePrefix = randomBytes(4).toString('hex');
  let baseURL = '';

  const hooks = {
    requests: () => recorded.map((r) => structuredClone(r)),
    reset: () => {
      script.clear();
      recorded.length = 0;
      faultBook.set([]);
    },
    setFaults: (next: EmulatorFault[]) => faultBook.set(next),
  };

  /**
   * Checks what the headers alone can decide (the target, the key, a control request's Host, Origin and
   * type) before reading the body, which is capped; a refused request's connection closes after the answer.
   */
  async function accept(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    let raw: Buffer;
    try {
      url = requestURL(req.url);
      const control = url.pathname.startsWith('/__emulator/');
      if (control) checkControlRequest(req, host);
      else checkAuth(req.headers, url.pathname, apiKey);
      raw = await readCappedBody(req, maxBodyBytes(req, control));
    } catch (error) {
      if (!req.complete) {
        res.setHeader('connection', 'close');
        res.once('finish', () => req.destroy());
      }
      await writeReply(res, errorReply(error), undefined);
      return;
    }
    await handle(req, res, url, raw);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL, raw: Buffer): Promise<void> {
    const method = req.method ?? 'GET';
    // No trailing-slash folding: the service answers 404 for `GET /v1/models/` and `/v1/vector_stores/`.
    const path = url.pathname;
    let fault: EmulatorFault | undefined;
    let reply: Reply;
    try {
      const body = parseBody(req, raw);
      const ctx: RouteContext = {
        method,
        path,
        query: url.searchParams,
        headers: req.headers,
        raw,
        body,
        params: {},
        channel: path.startsWith('/svc_plan/') ? 'plan' : 'default',
        state,
        script,
        images,
        // Links (image urls) use the address the caller reached us on, which works through port mappings.
        baseURL: req.headers.host ? `http://${req.headers.host}` : baseURL,
        model,
        parseDelayMs,
      };
      if (path.startsWith('/__emulator/')) {
        reply = controlRoute(ctx, hooks);
      } else {
        recorded.push(record(method, path, url, req, body, raw));
        if (recorded.length > MAX_RECORDED) recorded.splice(0, recorded.length - MAX_RECORDED);
        fault = faultBook.pick(method, path, headerValue(req.headers['x-emulator-fault']), body);
        if (fault?.latencyMs) await sleep(fault.latencyMs);
        const matched = matchRoute(method, path);
        if (!matched) throw new EmulatorHttpError(404, 'not_found', `Unknown request URL: ${method} ${path}`);
        ctx.params = matched.params;
        reply =
          fault?.status !== undefined
            ? faultReply({ ...fault, status: fault.status })
            : await matched.handler(ctx);
      }
    } catch (error) {
      reply = errorReply(error);
    }
    await writeReply(res, reply, fault);
  }

  const server = createServer((req, res) => {
    res.setHeader('X-Trace-Id', `trace-${tracePrefix}-${(++traceCounter).toString(16)}`);
    accept(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  baseURL = `http://${shownHost}:${address.port}`;

  const emulator = {
    baseURL,
    port: address.port,
    script: (answers: ScriptedAnswer[]) => script.push(answers),
    scriptedRemaining: () => script.size,
    requests: hooks.requests,
    reset: hooks.reset,
    setFaults: hooks.setFaults,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  } as Emulator;
  // Not enumerable: the key stays out of JSON.stringify, util.inspect and object spreads.
  Object.defineProperty(emulator, 'apiKey', { value: apiKey, enumerable: false });
  return emulator;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseBody(req: IncomingMessage, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const type = String(req.headers['content-type'] ?? '');
  if (type.startsWith('multipart/')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    if (type.includes('json') || req.method === 'POST') {
      throw new EmulatorHttpError(400, 'request_params_invalid', 'body: not valid JSON');
    }
    return undefined;
  }
  if (nestsDeeperThan(parsed, MAX_JSON_DEPTH))
    throw new EmulatorHttpError(
      400,
      'request_params_invalid',
      `body: nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  return parsed;
}

function record(
  method: string,
  path: string,
  url: URL,
  req: IncomingMessage,
  body: unknown,
  raw: Buffer,
): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (!HIDDEN_HEADERS.has(key) && value !== undefined)
      headers[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  const multipart = String(req.headers['content-type'] ?? '').startsWith('multipart/');
  return {
    method,
    path,
    query: Object.fromEntries(url.searchParams),
    headers,
    body: multipart ? { multipart: true, bytes: raw.length } : body,
  };
}

function errorReply(error: unknown): Reply {
  if (error instanceof EmulatorHttpError) {
    return json(errorBody(error.message, error.type), error.status, error.headers);
  }
  // A recursive JSON Schema (`$ref` cycles) overflows the stack of whatever walks it: the request's fault.
  if (error instanceof RangeError && /call stack/i.test(error.message))
    return json(errorBody('body: recursive or too deeply nested to process', 'request_params_invalid'), 400);
  const message = error instanceof Error ? error.message : String(error);
  return json(errorBody(`Emulator internal error: ${message}`, 'internal_error'), 500);
}
