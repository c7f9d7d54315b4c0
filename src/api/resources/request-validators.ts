import { validateResourceId } from '../schemas/validate-resource-id.js';
import type { Channel } from './chat-completions.js';

type RequestSchemas = typeof import('../schemas/request-schemas.js');

// The zod request schemas load on the first validated request, not when svc-agents is imported (zod is
// most of a cold import); every resource method is async, so waiting for them costs nothing.
let requestSchemas: Promise<RequestSchemas> | undefined;
const loadSchemas = () => {
  requestSchemas ??= import('../schemas/request-schemas.js');
  return requestSchemas;
};

/**
 * The one place where resources meet the request schemas (src/api/schemas): each resource method awaits
 * its entry before sending anything, so a broken rule rejects with `RequestValidationError` and no
 * network call.
 */
export const validateRequest = {
  /** `validatedMessages`: leading messages an earlier request sent unchanged and validated. */
  async chatCompletion(params: unknown, channel: Channel, validatedMessages = 0): Promise<void> {
    (await loadSchemas()).validateChatCompletionParams(params, { channel, validatedMessages });
  },
  async tokenCount(params: unknown): Promise<void> {
    (await loadSchemas()).validateTokenCountParams(params);
  },
  async messagesCountTokens(params: unknown, channel: Channel): Promise<void> {
    (await loadSchemas()).validateMessagesCountTokensParams(params, { channel });
  },
  async imageGenerate(params: unknown): Promise<void> {
    (await loadSchemas()).validateImageGenerateParams(params);
  },
  async voiceCreate(params: unknown): Promise<void> {
    (await loadSchemas()).validateVoiceCloneParams(params);
  },
  async vectorStoreCreate(params: unknown): Promise<void> {
    (await loadSchemas()).validateVectorStoreCreateParams(params);
  },
  async vectorStoreFileCreate(params: unknown): Promise<void> {
    (await loadSchemas()).validateVectorStoreFilesCreateParams(params);
  },
  async listQuery(query: unknown, operation: string): Promise<void> {
    (await loadSchemas()).validateListQuery(query, operation);
  },
  async fileUpload(params: unknown): Promise<void> {
    (await loadSchemas()).validateFileUploadParams(params);
  },
  async fileListQuery(query: unknown): Promise<void> {
    (await loadSchemas()).validateFileListQuery(query);
  },
  /** A path id must be a non-empty string: an empty one would silently address another path. */
  id(name: string, value: unknown, operation: string): void {
    validateResourceId(value, name, operation);
  },
};
