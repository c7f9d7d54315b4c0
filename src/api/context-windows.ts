import { planMaxTokens } from './schemas/model-ids.js';

/**
 * Context length (input plus generated tokens) of each chat model, in tokens. The spec gives no figures:
 * the `-8k` models are 8K by name, the plan model accepts `max_tokens` up to 384K so its window holds that
 * plus a prompt, and every other model gets a conservative 32K. One table for the client and the emulator.
 */
export const defaultContextWindows: Readonly<Record<string, number>> = Object.freeze({
  'svc-1-8k': 8192,
  'svc-1v-8k': 8192,
  'svc-router-v1': planMaxTokens + 32_768,
  'svc-3.7-flash': 32_768,
  'svc-3.5-flash': 32_768,
  'svc-3.5-flash-2603': 32_768,
  'svc-1o-turbo-vision': 32_768,
  'svcaudio-2.5-chat': 32_768,
  'svc-1o-audio': 32_768,
  'svc-audio-2': 32_768,
  'svc-audio-2-mini': 32_768,
  'svc-audio-r1.1': 32_768,
});

/** Window of a model the table does not know: small enough to be safe on any current model. */
export const fallbackContextWindow = 8192;

/** The context window of `model`: from `overrides`, else the default table, else the fallback. */
export function contextWindowOf(model: string, overrides?: Readonly<Record<string, number>>): number {
  return overrides?.[model] ?? defaultContextWindows[model] ?? fallbackContextWindow;
}

/**
 * True when an error message from the service says the input is over the model's context length
 * (the emulator's wording, and the usual "maximum context length" / "too long" phrasings).
 */
export function isInputTooLongMessage(message: string): boolean {
  return /input (is )?too long|context length|context window|too many tokens/i.test(message);
}
