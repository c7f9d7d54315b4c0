import { loadOnce } from '../../core/load-module.js';
import { validateResourceId } from '../schemas/validate-resource-id.js';
import type { Channel } from '../types/request-options.js';

type RequestSchemas = typeof import('../schemas/request-schemas.js');

// The zod request schemas load on the first validated request, not when svc-agents is imported (zod is
// most of a cold import). Once loaded, checks run synchronously: no promise or await per request.
const loadRequestSchemas = loadOnce(() => import('../schemas/request-schemas.js'));

/** Runs `check` now when the schemas are loaded (answers `undefined`), else once they are (a promise). */
function withSchemas(check: (schemas: RequestSchemas) => void): Promise<void> | undefined {
  const loaded = loadRequestSchemas.loaded;
  if (loaded === undefined) return loadRequestSchemas().then(check);
  check(loaded);
  return undefined;
}

/**
 * The one place where resources meet the request schemas (src/api/schemas): each resource method awaits
 * its entry before sending anything, so a broken rule rejects with `RequestValidationError` and no
 * network call. An entry throws at once, or answers a promise only while the schemas are still loading.
 */
export const validateRequest = {
  chatCompletion(params: unknown, channel: Channel): Promise<void> | undefined {
    return withSchemas((s) => s.validateChatCompletionParams(params, { channel }));
  },
  tokenCount(params: unknown): Promise<void> | undefined {
    return withSchemas((s) => s.validateTokenCountParams(params));
  },
  messagesCountTokens(params: unknown, channel: Channel): Promise<void> | undefined {
    return withSchemas((s) => s.validateMessagesCountTokensParams(params, { channel }));
  },
  imageGenerate(params: unknown): Promise<void> | undefined {
    return withSchemas((s) => s.validateImageGenerateParams(params));
  },
  voiceCreate(params: unknown): Promise<void> | undefined {
    return withSchemas((s) => s.validateVoiceCloneParams(params));
  },
  vectorStoreCreate(params: unknown): Promise<void> | undefined {
    return withSchemas((s) => s.validateVectorStoreCreateParams(params));
  },
  vectorStoreFileCreate(params: unknown, storeType?: 'text' | 'image'): Promise<void> | undefined {
    return withSchemas((s) => s.validateVectorStoreFilesCreateParams(params, { storeType }));
  },
  listQuery(query: unknown, operation: string): Promise<void> | undefined {
    return withSchemas((s) => s.validateListQuery(query, operation));
  },
  fileUpload(params: unknown): Promise<void> | undefined {
    return withSchemas((s) => s.validateFileUploadParams(params));
  },
  fileListQuery(query: unknown): Promise<void> | undefined {
    return withSchemas((s) => s.validateFileListQuery(query));
  },
  /** A path id must be a non-empty string: an empty one would silently address another path. */
  id(name: string, value: unknown, operation: string): void {
    validateResourceId(value, name, operation);
  },
};
