import type { ServerResponse } from 'node:http';
import { errorBody, errorTypeForStatus } from './errors.js';
import { sleep } from './faults.js';
import type { Reply } from './reply.js';
import type { EmulatorFault } from './types.js';

const MALFORMED_EVENT = 'data: {"id":"chatcmpl-malformed","object":"chat.completion.chunk","choices":[{\n\n';

/** The error reply a `status` fault answers with. */
export function faultReply(fault: EmulatorFault & { status: number }): Reply {
  const body = fault.body ?? errorBody('Emulated fault', errorTypeForStatus(fault.status));
  if (fault.echoKey) return { kind: 'json', status: fault.status, body, headers: fault.headers ?? {}, fault };
  return { kind: 'json', status: fault.status, body, headers: fault.headers ?? {} };
}

/** Writes a reply, applying the fault's cut, malformed chunk and drip. */
export async function writeReply(
  res: ServerResponse,
  reply: Reply,
  fault: EmulatorFault | undefined,
): Promise<void> {
  const effective = { ...fault, ...reply.fault };
  // A request's own fault waited before the route ran; a scripted answer's latency waits here.
  if (reply.fault?.latencyMs) await sleep(reply.fault.latencyMs);
  const headers = { ...effective.headers, ...reply.headers };
  if (reply.kind === 'sse' && effective.notEventStream) {
    const page = `<html><body><h1>502 Bad Gateway</h1>${effective.echoKey ? `<p>key ${callerKey(res)}</p>` : ''}</body></html>`;
    res.writeHead(200, { ...headers, 'content-type': 'text/html' });
    res.end(page);
    return;
  }
  if (reply.kind === 'sse') {
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const events = reply.events.map((event) =>
      typeof event === 'string' ? `data: ${event}\n\n` : `event: ${event.event}\ndata: ${event.data}\n\n`,
    );
    if (effective.malformedChunk) events.splice(Math.min(1, events.length), 0, MALFORMED_EVENT);
    if (effective.echoKey) {
      const error = errorBody(`Invalid key ${callerKey(res)}`, 'internal_error');
      events.splice(Math.min(1, events.length), events.length, `data: ${JSON.stringify(error)}\n\n`);
    }
    if (reply.done !== false) events.push('data: [DONE]\n\n');
    await writePieces(
      res,
      events.map((e) => Buffer.from(e)),
      effective,
    );
    return;
  }
  let body: Buffer;
  let contentType: string;
  if (reply.kind === 'json') {
    const text = JSON.stringify(reply.body);
    // An error body that quotes the key, as some proxies and servers do.
    body = Buffer.from(
      effective.echoKey && reply.status >= 400
        ? text.replace('Emulated fault', `Emulated fault for ${callerKey(res)}`)
        : text,
    );
    contentType = 'application/json';
  } else {
    body = reply.body;
    contentType = reply.contentType;
  }
  if (effective.malformedChunk) body = body.subarray(0, Math.max(1, Math.floor(body.length / 2)));
  res.writeHead(reply.status, { ...headers, 'content-type': contentType, 'content-length': body.length });
  const pieces = effective.dripMs ? splitInto(body, 16) : [body];
  await writePieces(res, pieces, effective);
}

async function writePieces(res: ServerResponse, all: Buffer[], fault: EmulatorFault): Promise<void> {
  // Without a drip there is nothing to wait for between events: one write is much cheaper than many.
  const pieces = fault.dripMs ? all : [Buffer.concat(all)];
  let written = 0;
  for (const [i, piece] of pieces.entries()) {
    if (res.destroyed) return;
    if (fault.dripMs && i > 0) await sleep(fault.dripMs);
    if (fault.stallAfterBytes !== undefined && written + piece.length >= fault.stallAfterBytes) {
      // The head and some bytes, then silence: only the client's own timeout ends this response.
      res.write(piece.subarray(0, fault.stallAfterBytes - written));
      return;
    }
    if (fault.cutAfterBytes !== undefined && written + piece.length >= fault.cutAfterBytes) {
      const head = piece.subarray(0, fault.cutAfterBytes - written);
      // Destroy only after the partial bytes are flushed, so the client sees them before the reset.
      res.write(head, () => res.destroy());
      return;
    }
    written += piece.length;
    if (i === pieces.length - 1) {
      res.end(piece);
      return;
    }
    if (!res.write(piece)) await drainOrClose(res);
  }
  res.end();
}

/** The bearer key of the request being answered. */
function callerKey(res: ServerResponse): string {
  const auth = res.req?.headers.authorization ?? '';
  return auth.replace(/^Bearer\s+/i, '');
}

function splitInto(body: Buffer, count: number): Buffer[] {
  const size = Math.max(1, Math.ceil(body.length / count));
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < body.length; offset += size)
    pieces.push(body.subarray(offset, offset + size));
  return pieces;
}

function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
