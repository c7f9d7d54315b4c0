import type { AgentInstrumentation } from '../agent/agent-instrumentation.js';
import { MissingDependencyError } from '../core/errors.js';
import { loadOnce } from '../core/load-module.js';
import { RunTracer } from './run-tracer.js';
import type { OpenTelemetryOptions } from './telemetry-options.js';

type OtelApi = typeof import('@opentelemetry/api');

// `@opentelemetry/api` is an optional peer, loaded on the first traced run.
const loadOtelApi = loadOnce((): Promise<OtelApi> => import('@opentelemetry/api'), {
  packageName: '@opentelemetry/api',
  feature: 'openTelemetry()',
});

let warnedMissing = false;

/**
 * The API, or `undefined` when it is not installed: runs go on untraced, and the process is told once, with
 * a `MissingDependencyError` warning naming the package to install, since tracing was asked for.
 */
async function otelApiOrWarn(): Promise<OtelApi | undefined> {
  try {
    return await loadOtelApi();
  } catch (error) {
    if (!MissingDependencyError.isInstance(error)) throw error;
    if (!warnedMissing) {
      warnedMissing = true;
      process.emitWarning(error.message, {
        type: 'MissingDependencyError',
        code: 'SVC_AGENTS_MISSING_DEPENDENCY',
      });
    }
    return undefined;
  }
}

/**
 * Traces runs with OpenTelemetry, following the GenAI semantic conventions: `new Agent({ instrumentation:
 * openTelemetry() })`. Spans go to whatever tracer provider you register (console, OTLP collector, ...);
 * without a provider nothing is recorded. Without `@opentelemetry/api` installed, runs go on untraced and
 * the process gets one warning (`MissingDependencyError`, code `SVC_AGENTS_MISSING_DEPENDENCY`) saying
 * what to install.
 * @example
 * const agent = new Agent({ client, model, tools, instrumentation: openTelemetry({ agentName: 'support' }) });
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): AgentInstrumentation {
  return {
    async startRun(info) {
      const api = await otelApiOrWarn();
      if (!api) return undefined;
      const tracer = options.tracer ?? api.trace.getTracer('svc-agents');
      return new RunTracer(api, tracer, options, info);
    },
  };
}
