import type { Tracer } from '@opentelemetry/api';

/** Options of `openTelemetry()`. */
export interface OpenTelemetryOptions {
  /** Tracer to use. @default the global provider's tracer `svc-agents` (a no-op until you register a provider) */
  tracer?: Tracer;
  /** `gen_ai.agent.name` of the `invoke_agent` span. @default the agent's `name` */
  agentName?: string;
  /**
   * Record message contents, tool arguments and results on spans (`gen_ai.input.messages`, ...). They may
   * hold personal data, so they are off unless you opt in. @default false
   */
  recordContents?: boolean;
  /** Extra attributes set on every span, e.g. `{ 'deployment.environment': 'prod' }`. */
  attributes?: Record<string, string | number | boolean>;
}
