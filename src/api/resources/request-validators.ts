import { RequestValidationError } from '../errors/request-validation-error.js';
import { validateChatCompletionParams } from '../schemas/chat-completion-params-schema.js';
import type { Channel } from './chat-completions.js';

/**
 * The one place where resources meet the request schemas (src/api/schemas): each resource method calls
 * its entry before sending anything, so a broken rule throws `RequestValidationError` with no network call.
 */
export const validateRequest = {
  chatCompletion(params: unknown, channel: Channel): void {
    validateChatCompletionParams(params, { channel });
  },
  tokenCount(_params: unknown): void {},
  messagesCountTokens(_params: unknown, _channel: Channel): void {},
  imageGenerate(_params: unknown): void {},
  voiceCreate(_params: unknown): void {},
  vectorStoreCreate(_params: unknown): void {},
  vectorStoreFileCreate(_params: unknown): void {},
  listQuery(_query: unknown): void {},
  fileUpload(_params: unknown): void {},
  /** A path id must be a non-empty string: an empty one would silently address the collection instead. */
  id(name: string, value: unknown): void {
    if (typeof value !== 'string' || value.trim() === '') {
      throw new RequestValidationError({
        operation: 'path',
        issues: [{ path: name, message: 'must be a non-empty string', code: 'request_params_invalid' }],
      });
    }
  },
};
