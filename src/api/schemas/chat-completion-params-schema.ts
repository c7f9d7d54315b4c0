import { createRequire } from 'node:module';
import type { ChatCompletionParamsInput } from './chat-completion-params-validator.js';

export type { ChatCompletionParamsInput };

/** Which chat channel a request goes to: `/v1` or the plan channel `/svc_plan/v1`. */
export type ChatChannel = 'default' | 'plan';

type ValidateChatCompletionParams = (params: unknown, options?: { channel?: ChatChannel }) => void;

// The zod schemas live in chat-completion-params-validator.ts and are loaded on first use, not when
// svc-agents is imported: zod is most of a cold import. That module hands its function over here when
// it is evaluated, whoever loads it (the client's first request, the emulator, this file's require).
let loaded: ValidateChatCompletionParams | undefined;

/** Called by chat-completion-params-validator.ts once its schemas exist. @internal */
export function provideChatCompletionValidator(validate: ValidateChatCompletionParams): void {
  loaded = validate;
}

/**
 * This function is synchronous by contract, so a first call loads the schemas with `require()` of the ES
 * module (Node 20.19+, 22.12+): it shares the ESM module map, so zod is the user's own instance.
 */
function loadSync(): ValidateChatCompletionParams {
  let validator: { validateChatCompletionParams: ValidateChatCompletionParams };
  try {
    validator = createRequire(import.meta.url)('./chat-completion-params-validator.js');
  } catch (cause) {
    throw new Error(
      'validateChatCompletionParams: the request schemas could not be loaded synchronously ' +
        '(this Node version cannot require() ES modules; use Node 20.19+ or 22.12+)',
      { cause },
    );
  }
  // Taken from the namespace too: a loader that compiles the file to CommonJS (tsx) gives it its own
  // copy of this module to register with.
  loaded ??= validator.validateChatCompletionParams;
  return loaded;
}

/**
 * Throws `RequestValidationError` listing every rule `params` breaks, before any network call.
 * @example validateChatCompletionParams(params, { channel: 'plan' })
 */
export function validateChatCompletionParams(
  params: unknown,
  { channel = 'default' }: { channel?: ChatChannel } = {},
): void {
  (loaded ?? loadSync())(params, { channel });
}
