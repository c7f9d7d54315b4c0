import { RequestValidationError } from '../api/errors/request-validation-error.js';
import { validateChatCompletionParams } from '../api/schemas/chat-completion-params-schema.js';
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
