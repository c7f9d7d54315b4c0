import { RequestValidationError } from '../api/errors.js';
import { validateChatCompletionParams } from '../api/schemas/chat-completion-params-validator.js';
import { validateImageGenerateParams } from '../api/schemas/image-generate-params-schema.js';
import { validateMessagesCountTokensParams } from '../api/schemas/messages-count-tokens-params-schema.js';
import { validateTokenCountParams } from '../api/schemas/token-count-params-schema.js';
import {
  validateVectorStoreCreateParams,
  validateVectorStoreFilesCreateParams,
} from '../api/schemas/vector-store-params-schemas.js';
import { validateVoiceCloneParams } from '../api/schemas/voice-clone-params-schema.js';
import { EmulatorHttpError, invalidParams } from './errors.js';

/**
 * The one place the emulator validates request bodies. It reuses the client's schemas, so the emulator
 * refuses exactly what the client refuses, and answers 400 with the service's error type.
 */
export function validateOrThrow(run: () => void): void {
  try {
    run();
  } catch (error) {
    if (error instanceof RequestValidationError) {
      throw new EmulatorHttpError(400, error.code, error.message.split('\n').join('; '));
    }
    throw error;
  }
}

/** Validates a chat-completion body for a channel. */
export function validateChatBody(body: unknown, channel: 'default' | 'plan'): void {
  validateOrThrow(() => validateChatCompletionParams(body, { channel }));
}

/** The client's request schemas, answered the service's way (400 with the error type of the broken rule). */
export const validateBody = {
  chat: (body: unknown, channel: 'default' | 'plan') => validateChatBody(body, channel),
  tokenCount: (body: unknown) => validateOrThrow(() => validateTokenCountParams(body)),
  messagesCountTokens: (body: unknown, channel: 'default' | 'plan') =>
    validateOrThrow(() => validateMessagesCountTokensParams(body, { channel })),
  imageGenerate: (body: unknown) => validateOrThrow(() => validateImageGenerateParams(body)),
  voiceClone: (body: unknown) => validateOrThrow(() => validateVoiceCloneParams(body)),
  vectorStoreCreate: (body: unknown) => validateOrThrow(() => validateVectorStoreCreateParams(body)),
  vectorStoreFilesCreate: (body: unknown, storeType: 'text' | 'image') =>
    validateOrThrow(() => validateVectorStoreFilesCreateParams(body, { storeType })),
};

/** A tiny rule collector for operations without a shared schema: every broken rule in one 400 message. */
export class Rules {
  private readonly issues: string[] = [];

  /** Records `path: message` when `broken` is true. */
  check(broken: boolean, path: string, message: string): this {
    if (broken) this.issues.push(`${path}: ${message}`);
    return this;
  }

  /** Throws 400 `request_params_invalid` listing the broken rules, if any. */
  throwIfAny(): void {
    if (this.issues.length > 0) throw invalidParams(this.issues.join('; '));
  }
}

/** The body as a JSON object, or 400. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidParams('body: must be a JSON object');
  }
  return body as Record<string, unknown>;
}
