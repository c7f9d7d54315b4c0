import { validateChatCompletionParams } from '../schemas/chat-completion-params-schema.js';
import { validateFileListQuery, validateFileUploadParams } from '../schemas/file-params-schemas.js';
import { validateImageGenerateParams } from '../schemas/image-generate-params-schema.js';
import { validateListQuery } from '../schemas/list-query-schema.js';
import { validateMessagesCountTokensParams } from '../schemas/messages-count-tokens-params-schema.js';
import { validateTokenCountParams } from '../schemas/token-count-params-schema.js';
import { validateResourceId } from '../schemas/validate-resource-id.js';
import {
  validateVectorStoreCreateParams,
  validateVectorStoreFilesCreateParams,
} from '../schemas/vector-store-params-schemas.js';
import { validateVoiceCloneParams } from '../schemas/voice-clone-params-schema.js';
import type { Channel } from './chat-completions.js';

/**
 * The one place where resources meet the request schemas (src/api/schemas): each resource method calls
 * its entry before sending anything, so a broken rule throws `RequestValidationError` with no network call.
 */
export const validateRequest = {
  chatCompletion(params: unknown, channel: Channel): void {
    validateChatCompletionParams(params, { channel });
  },
  tokenCount: validateTokenCountParams,
  messagesCountTokens(params: unknown, channel: Channel): void {
    validateMessagesCountTokensParams(params, { channel });
  },
  imageGenerate: validateImageGenerateParams,
  voiceCreate: validateVoiceCloneParams,
  vectorStoreCreate: validateVectorStoreCreateParams,
  vectorStoreFileCreate(params: unknown): void {
    validateVectorStoreFilesCreateParams(params);
  },
  listQuery: validateListQuery,
  fileUpload: validateFileUploadParams,
  fileListQuery: validateFileListQuery,
  /** A path id must be a non-empty string: an empty one would silently address another path. */
  id(name: string, value: unknown, operation: string): void {
    validateResourceId(value, name, operation);
  },
};
