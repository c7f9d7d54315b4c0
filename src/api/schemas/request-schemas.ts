/**
 * Every request validator built on zod, in one module that the client imports on its first validated
 * request (see `validateRequest`), so importing svc-agents does not load zod.
 */
export { validateChatCompletionParams } from './chat-completion-params-validator.js';
export { validateFileListQuery, validateFileUploadParams } from './file-params-schemas.js';
export { validateImageGenerateParams } from './image-generate-params-schema.js';
export { validateListQuery } from './list-query-schema.js';
export { validateMessagesCountTokensParams } from './messages-count-tokens-params-schema.js';
export { validateTokenCountParams } from './token-count-params-schema.js';
export {
  validateVectorStoreCreateParams,
  validateVectorStoreFilesCreateParams,
} from './vector-store-params-schemas.js';
export { validateVoiceCloneParams } from './voice-clone-params-schema.js';
