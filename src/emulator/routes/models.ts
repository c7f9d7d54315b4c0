import { notFound } from '../errors.js';
import { MODEL_CREATED, MODEL_IDS, MODEL_OWNER } from '../models-catalog.js';
import { json, type Reply } from '../reply.js';
import type { RouteContext } from '../route-context.js';

function model(id: string) {
  return { id, object: 'model', created: MODEL_CREATED, owned_by: MODEL_OWNER };
}

/** `GET /v1/models`. */
export function listModels(): Reply {
  return json({ object: 'list', data: MODEL_IDS.map(model) });
}

/** `GET /v1/models/{model}`. */
export function retrieveModel(ctx: RouteContext): Reply {
  const id = ctx.params.model ?? '';
  if (!MODEL_IDS.includes(id)) throw notFound('model', id);
  return json(model(id));
}
