import { randomBytes, randomInt } from 'node:crypto';
import { generateImagePng } from '../media/png.js';
import { json, type Reply } from '../reply.js';
import type { RouteContext } from '../route-context.js';
import { objectBody, validateBody } from '../validate.js';

const MAX_CACHED_IMAGES = 64;

/** `POST /v1/images/generations`: a real PNG, deterministic from prompt and seed. */
export function generateImage(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  validateBody.imageGenerate(body);
  const [width, height] = String(body.size ?? '1024x1024')
    .split('x')
    .map(Number) as [number, number];
  const seed = typeof body.seed === 'number' && body.seed !== 0 ? body.seed : randomInt(1, 2 ** 31 - 1);
  const png = generateImagePng(body.prompt as string, seed, width, height);
  const item: Record<string, unknown> = { seed, finish_reason: 'success' };
  if (body.response_format === 'b64_json') {
    item.image = png.toString('base64');
  } else {
    const id = randomBytes(12).toString('hex');
    ctx.images.set(id, png);
    // Bounded: generated images are kept for download only while recent.
    if (ctx.images.size > MAX_CACHED_IMAGES) ctx.images.delete(ctx.images.keys().next().value as string);
    item.url = `${ctx.baseURL}/__emulator/images/${id}.png`;
  }
  return json({ created: Math.floor(Date.now() / 1000), data: [item] });
}
