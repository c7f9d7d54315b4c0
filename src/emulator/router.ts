import { invalidParams } from './errors.js';
import type { RouteHandler } from './route-context.js';
import { chatCompletions } from './routes/chat.js';
import { deleteFile, fileContent, listFiles, retrieveFile, uploadFile } from './routes/files.js';
import { generateImage } from './routes/images.js';
import { countMessageTokens, countTokens, createMessage } from './routes/messages.js';
import { listModels, retrieveModel } from './routes/models.js';
import {
  addStoreFiles,
  createStore,
  deleteStore,
  deleteStoreFile,
  listStoreFiles,
  listStores,
  retrieveStore,
} from './routes/vector-stores.js';
import { createVoice, listVoices } from './routes/voices.js';

interface Route {
  method: string;
  pattern: RegExp;
  handler: RouteHandler;
}

const PLAN = '(?:/svc_plan)?';
const ID = '([^/]+)';

function route(method: string, path: string, handler: RouteHandler): Route {
  return { method, pattern: new RegExp(`^${path}$`), handler };
}

/** Every operation of the service; both channels where the spec has them. */
const ROUTES: Route[] = [
  route('POST', `${PLAN}/v1/chat/completions`, chatCompletions),
  route('POST', '/v1/token/count', countTokens),
  route('POST', `${PLAN}/v1/messages/count_tokens`, countMessageTokens),
  route('POST', `${PLAN}/v1/messages`, createMessage),
  route('GET', '/v1/models', listModels),
  route('GET', `/v1/models/${ID}`, retrieveModel),
  route('POST', '/v1/files', uploadFile),
  route('GET', '/v1/files', listFiles),
  route('GET', `/v1/files/${ID}`, retrieveFile),
  route('GET', `/v1/files/${ID}/content`, fileContent),
  route('DELETE', `/v1/files/${ID}`, deleteFile),
  route('POST', '/v1/vector_stores', createStore),
  route('GET', '/v1/vector_stores', listStores),
  route('GET', `/v1/vector_stores/${ID}`, retrieveStore),
  route('DELETE', `/v1/vector_stores/${ID}`, deleteStore),
  route('POST', `/v1/vector_stores/${ID}/files`, addStoreFiles),
  route('GET', `/v1/vector_stores/${ID}/files`, listStoreFiles),
  route('DELETE', `/v1/vector_stores/${ID}/files/${ID}`, deleteStoreFile),
  route('POST', '/v1/audio/voices', createVoice),
  route('GET', '/v1/audio/voices', listVoices),
  route('POST', '/v1/images/generations', generateImage),
];

const PARAM_NAMES: Record<string, string[]> = {
  '/v1/models/': ['model'],
  '/v1/files/': ['file_id'],
  '/v1/vector_stores/': ['store_id', 'file_id'],
};

/** The handler and path parameters for a request, or undefined (404). */
export function matchRoute(
  method: string,
  path: string,
): { handler: RouteHandler; params: Record<string, string> } | undefined {
  for (const r of ROUTES) {
    if (r.method !== method) continue;
    const match = r.pattern.exec(path);
    if (!match) continue;
    const names = Object.entries(PARAM_NAMES).find(([prefix]) => path.startsWith(prefix))?.[1] ?? [];
    const params: Record<string, string> = {};
    match.slice(1).forEach((value, i) => {
      const name = names[i] ?? String(i);
      try {
        params[name] = decodeURIComponent(value);
      } catch {
        throw invalidParams(`${name}: bad percent-encoding in the path`);
      }
    });
    return { handler: r.handler, params };
  }
  return undefined;
}
