// svc-agents/telemetry: OpenTelemetry tracing of agent runs (needs the optional peer @opentelemetry/api).
export { GenAI } from './gen-ai-attributes.js';
export { openTelemetry } from './open-telemetry.js';
export type { OpenTelemetryOptions } from './telemetry-options.js';
