import type { AgentInstrumentation } from '../agent/agent-instrumentation.js';
import { loadOnce } from '../transport/utils.js';
import { RunTracer } from './run-tracer.js';
import type { OpenTelemetryOptions } from './telemetry-options.js';

type OtelApi = typeof import('@opentelemetry/api');

// `@opentelemetry/api` is an optional peer: loaded on the first traced run; when it is missing, no spans.
const loadOtelApi = loadOnce(
  (): Promise<OtelApi | undefined> =>
    import('@opentelemetry/api').then(
      (api) => api,
      () => undefined,
    ),
);

/**
 * Traces runs with OpenTelemetry, following the GenAI semantic conventions: `new Agent({ instrumentation:
 * openTelemetry() })`. Spans go to whatever tracer provider you register (console, OTLP collector, ...);
 * without `@opentelemetry/api` installed, or without a provider, nothing is recorded.
 * @example
 * const agent = new Agent({ client, model, tools, instrumentation: openTelemetry({ agentName: 'support' }) });
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): AgentInstrumentation {
  return {
    async startRun(info) {
      const api = await loadOtelApi();
      if (!api) return undefined;
      const tracer = options.tracer ?? api.trace.getTracer('svc-agents');
      return new RunTracer(api, tracer, options, info);
    },
  };
}
