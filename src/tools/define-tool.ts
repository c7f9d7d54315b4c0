import { convertParameters } from './convert-parameters.js';
import { createArgumentsParser } from './create-arguments-parser.js';
import { ToolDefinitionError } from './errors.js';
import type { DocumentSource, NeedsApproval, Tool, ToolContext } from './tool.js';
import type { InferToolArgs, JsonSchemaParameters, ToolParameters } from './tool-parameters.js';

/** The spec's function-name rule. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/** Default per-call time limit of a tool, in milliseconds. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** Options of `defineTool`. */
export interface DefineToolOptions<P extends ToolParameters, Out, C> {
  /** Name the model calls the tool by; `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`. */
  name: string;
  /** What the tool does and when to use it, written for the model. */
  description: string;
  /** Arguments schema: a zod 4 object, a zod 3 object from `zod/v3`, or a JSON Schema. @default no arguments */
  parameters?: P;
  /**
   * Runs the tool; `args` are already validated against `parameters`. Without it the tool is client-side
   * (as the AI SDK's tools without `execute`): a run pauses with the call pending until its output is
   * supplied (`state.supplyOutput(toolCallId, output)`, or `addToolOutput` in a `useChat` page).
   */
  execute?: (args: InferToolArgs<P>, ctx: ToolContext<C>) => Out | Promise<Out>;
  /** Per-call time limit in milliseconds. @default 60_000 */
  timeoutMs?: number;
  /** Whether a human must approve each call (or a function deciding per call). @default false */
  needsApproval?: NeedsApproval<InferToolArgs<P>, C>;
  /**
   * Running the same call twice is harmless (a read, or a write keyed by `ctx.toolCallId`), so a call
   * interrupted mid-run may be run again on resume instead of being reported as possibly done. @default false
   */
  idempotent?: boolean;
  /**
   * Cap on the `tool` message built from this tool's result, in characters; longer text is cut with a
   * marker telling the model how much was left out. @default the agent's `maxToolOutputChars` (100_000)
   */
  maxOutputChars?: number;
  /** The documents a result drew on, reported by an agent as `source` events and in `result.sources`. */
  sources?: (output: Awaited<Out>) => DocumentSource[];
}

const noParameters: JsonSchemaParameters = { type: 'object', properties: {} };

/**
 * Defines a function tool with arguments typed from its zod schema.
 * @example
 * const weather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather of a city.',
 *   parameters: z.object({ city: z.string().describe('City name') }),
 *   execute: async ({ city }) => fetchWeather(city),
 * });
 */
export function defineTool<P extends ToolParameters = JsonSchemaParameters, Out = unknown, C = unknown>(
  options: DefineToolOptions<P, Out, C>,
): Tool<InferToolArgs<P>, Awaited<Out>, C> {
  const {
    name,
    description,
    parameters = noParameters,
    execute,
    timeoutMs = DEFAULT_TOOL_TIMEOUT_MS,
    idempotent = false,
  } = options;
  const needsApproval = options.needsApproval ?? false;
  const toolName = typeof name === 'string' ? name : String(name);
  const fail = (rule: string): never => {
    throw new ToolDefinitionError({ toolName, rule });
  };
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    fail('name must match ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$ (letters, digits, _ and -, at most 64 characters)');
  }
  if (typeof description !== 'string' || description.trim() === '') {
    fail('description is required: tell the model what the tool does and when to use it');
  }
  if (execute !== undefined && typeof execute !== 'function') fail('execute must be a function or left out');
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    fail('timeoutMs must be a positive number of milliseconds');
  }
  if (typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function') {
    fail('needsApproval must be a boolean or a function');
  }
  if (typeof idempotent !== 'boolean') fail('idempotent must be a boolean');
  const { maxOutputChars } = options;
  if (
    maxOutputChars !== undefined &&
    (typeof maxOutputChars !== 'number' || !Number.isInteger(maxOutputChars) || maxOutputChars < 1)
  ) {
    fail('maxOutputChars must be an integer >= 1');
  }
  const { sources } = options;
  if (sources !== undefined && typeof sources !== 'function') fail('sources must be a function');
  const converted = convertParameters(toolName, parameters);
  return Object.freeze({
    kind: 'function' as const,
    name,
    description,
    definition: {
      type: 'function' as const,
      function: { name, description, parameters: converted.jsonSchema },
    },
    timeoutMs,
    needsApproval,
    idempotent: execute === undefined ? false : idempotent,
    ...(execute === undefined ? { clientSide: true as const } : {}),
    ...(maxOutputChars === undefined ? {} : { maxOutputChars }),
    ...(sources === undefined ? {} : { sources }),
    parseArguments: createArgumentsParser<InferToolArgs<P>>(name, parameters, converted),
    execute: (execute ?? runsOnClient(toolName)) as (
      args: InferToolArgs<P>,
      ctx: ToolContext<C>,
    ) => Promise<Awaited<Out>> | Awaited<Out>,
  });
}

// What a client-side tool runs if called anyway (the loop never does): its output comes from the caller.
function runsOnClient(name: string): () => never {
  return () => {
    throw new ToolDefinitionError({
      toolName: name,
      rule: 'a client-side tool (no execute) is answered with its output, not run',
    });
  };
}
