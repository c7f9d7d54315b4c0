import { modelSupportsRequest } from '../../api/schemas/model-supports-request.js';
import type { ChatCompletion } from '../../api/types/chat.js';
import { APIError, APITimeoutError, APIUserAbortError } from '../../core/errors.js';
import type { StepFallback } from '../run-result.js';
import { type CallModelOptions, callModel } from './call-model.js';

/** What `callModelWithFallback` answers: the completion, and the fallback when another model gave it. */
export interface FallbackCompletion {
  completion: ChatCompletion;
  /** Set when a fallback model answered: which one, and why the models before it were passed over. */
  fallback: StepFallback | undefined;
}

/**
 * `callModel` on the request's model, then, when the service is overloaded (429 after the client's
 * retries, 5xx, a timeout) before the answer began, on each fallback model in turn that supports the
 * request's features (tools, json_schema, audio). A stream that failed after it started is not moved:
 * its deltas were already emitted. Each move is emitted as a `model-fallback` event.
 */
export async function callModelWithFallback(
  options: CallModelOptions & { fallbackModels: readonly string[]; step: number },
): Promise<FallbackCompletion> {
  const { fallbackModels, step, params, ...rest } = options;
  const candidates = [params.model, ...fallbackModels.filter((model) => model !== params.model)];
  const failed: StepFallback['failed'] = [];
  for (let index = 0; ; ) {
    const model = candidates[index]!;
    let started = false;
    const create: CallModelOptions['create'] = (request, requestOptions) =>
      rest.create(request, requestOptions).then((response) => {
        started = true;
        return response;
      });
    try {
      const completion = await callModel({
        ...rest,
        create,
        params: index === 0 ? params : { ...params, model },
      });
      return { completion, fallback: failed.length > 0 ? { model, failed } : undefined };
    } catch (error) {
      const reason = overloadReason(error);
      if (started || reason === undefined || options.signal?.aborted) throw error;
      const next = candidates.findIndex(
        (candidate, i) => i > index && modelSupportsRequest(candidate, params),
      );
      if (next < 0) throw error;
      failed.push({ model, reason });
      rest.timer?.fellBack(model, candidates[next]!, reason);
      rest.emit?.({ type: 'model-fallback', step, from: model, to: candidates[next]!, reason });
      index = next;
    }
  }
}

/** Why an error means the model is overloaded (`status 429`, `status 503`, `timeout`), else `undefined`. */
function overloadReason(error: unknown): string | undefined {
  if (APIUserAbortError.isInstance(error) || !APIError.isInstance(error)) return undefined;
  if (APITimeoutError.isInstance(error)) return 'timeout';
  const status = error.status;
  return status !== undefined && (status === 429 || status >= 500) ? `status ${status}` : undefined;
}
