import { invalidParams, notFound } from '../errors.js';
import { json, type Reply } from '../reply.js';
import type { RouteContext } from '../route-context.js';
import type { EmulatorFault, RecordedRequest } from '../types.js';

/** What the control routes may do to the running emulator. */
export interface ControlHooks {
  requests(): RecordedRequest[];
  reset(): void;
  setFaults(faults: EmulatorFault[]): void;
}

/** `/__emulator/*`: scripting, recorded requests, reset, faults and generated images. No key needed. */
export function controlRoute(ctx: RouteContext, hooks: ControlHooks): Reply {
  const { method, path } = ctx;
  if (method === 'POST' && path === '/__emulator/script') {
    const body = ctx.body as { answers?: unknown } | unknown[] | undefined;
    ctx.script.push(Array.isArray(body) ? body : body?.answers);
    return json({ queued: ctx.script.size });
  }
  if (method === 'GET' && path === '/__emulator/requests') return json({ data: hooks.requests() });
  if (method === 'POST' && path === '/__emulator/reset') {
    hooks.reset();
    return json({ reset: true });
  }
  if (method === 'POST' && path === '/__emulator/faults') {
    const body = ctx.body as { faults?: unknown } | unknown[] | undefined;
    const faults = Array.isArray(body) ? body : body?.faults;
    if (!Array.isArray(faults)) throw invalidParams('faults: must be an array of faults');
    hooks.setFaults(faults as EmulatorFault[]);
    return json({ faults: faults.length });
  }
  if (method === 'GET' && path === '/__emulator/health') return json({ ok: true });
  const image = /^\/__emulator\/images\/([0-9a-f]+)\.png$/.exec(path);
  if (method === 'GET' && image) {
    const png = ctx.images.get(image[1]!);
    if (!png) throw notFound('image', image[1]!);
    return { kind: 'bytes', status: 200, body: png, contentType: 'image/png' };
  }
  throw notFound('emulator control route', `${method} ${path}`);
}
