import { randomBytes, randomInt } from 'node:crypto';
import { generateImagePng } from '../media/png.js';
import { json, type Reply } from '../reply.js';
import type { RouteContext } from '../route-context.js';
import { objectBody, Rules } from '../validate.js';

const SIZES = ['256x256', '512x512', '768x768', '1024x1024', '1280x800', '800x1280'];
const MAX_CACHED_IMAGES = 64;

/** `POST /v1/images/generations`: a real PNG, deterministic from prompt and seed. */
export function generateImage(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  const rules = new Rules()
    .check(body.model !== 'svc-1x-medium', 'model', 'required; only "svc-1x-medium"')
    .check(typeof body.prompt !== 'string' || body.prompt === '', 'prompt', 'required, a non-empty string')
    .check(typeof body.prompt === 'string' && body.prompt.length > 1024, 'prompt', 'at most 1024 characters')
    .check(
      body.size !== undefined && !SIZES.includes(String(body.size)),
      'size',
      `must be one of ${SIZES.join(', ')}`,
    )
    .check(body.n !== undefined && body.n !== 1, 'n', 'only 1 image per call')
    .check(
      body.response_format !== undefined &&
        body.response_format !== 'url' &&
        body.response_format !== 'b64_json',
      'response_format',
      'must be "url" or "b64_json"',
    )
    .check(body.seed !== undefined && !Number.isInteger(body.seed), 'seed', 'must be an integer')
    .check(
      body.steps !== undefined &&
        !(Number.isInteger(body.steps) && (body.steps as number) >= 1 && (body.steps as number) <= 100),
      'steps',
      'must be an integer from 1 to 100',
    )
    .check(
      body.cfg_scale !== undefined &&
        !(typeof body.cfg_scale === 'number' && body.cfg_scale >= 1 && body.cfg_scale <= 10),
      'cfg_scale',
      'must be a number from 1 to 10',
    );
  const style = body.style_reference as { source_url?: unknown; weight?: unknown } | undefined;
  if (style !== undefined) {
    rules
      .check(
        typeof style?.source_url !== 'string' || style.source_url === '',
        'style_reference.source_url',
        'required, a string',
      )
      .check(
        style?.weight !== undefined &&
          !(typeof style.weight === 'number' && style.weight > 0 && style.weight <= 2),
        'style_reference.weight',
        'must be greater than 0 and at most 2',
      );
  }
  rules.throwIfAny();
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
