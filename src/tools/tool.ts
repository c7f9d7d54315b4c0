import type { SvcClient } from '../api/svc-client.js';
import type {
  FunctionToolDefinition,
  RetrievalToolDefinition,
  ToolDefinition,
  WebSearchToolDefinition,
} from '../api/types/chat.js';
import type { InvalidToolArgumentsError } from './errors.js';

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext<C = unknown> {
  /** The `tool_call_id` the model gave this call. */
  toolCallId: string;
  /** Fires when the run is aborted or the call times out; pass it on to fetches and child processes. */
  signal: AbortSignal;
  /** The run's user context, as given to the agent. */
  context: C;
  /** The client the agent runs with, if any. */
  client: SvcClient | undefined;
  /** The agent run making the call (`result.runId`); `undefined` only when a tool is run outside an agent. */
  runId: string | undefined;
  /**
   * A key for deduplicating the call's side effects in your own systems: the same for every retry and
   * resume of this call, different in any other run (call ids alone may repeat across runs). Outside an
   * agent run it is the `toolCallId`.
   */
  idempotencyKey: string;
}

/** Approval policy of a tool: a constant, or decided per call from its arguments. */
export type NeedsApproval<Args = unknown, C = unknown> =
  | boolean
  | ((args: Args, ctx: ToolContext<C>) => boolean | Promise<boolean>);

/** Result of `Tool.parseArguments`. */
export type ParseArgumentsResult<Args> =
  | { ok: true; value: Args }
  | { ok: false; error: InvalidToolArgumentsError };

/** A function tool executed locally; build one with `defineTool`. */
// biome-ignore lint/suspicious/noExplicitAny: `any` defaults let tools with different argument types share one list.
export interface Tool<Args = any, Out = unknown, C = any> {
  /** Always `function`: executed locally. */
  readonly kind: 'function';
  /** Name the model calls the tool by. */
  readonly name: string;
  /** What the tool does and when to use it, written for the model. */
  readonly description: string;
  /** The wire object sent in the request's `tools`. */
  readonly definition: FunctionToolDefinition;
  /** Per-call time limit in milliseconds. @default 60_000 */
  readonly timeoutMs: number;
  /** Whether a human must approve a call before it runs. @default false */
  readonly needsApproval: NeedsApproval<Args, C>;
  /** True for a tool declared without `execute`: its calls pause the run until their output is supplied. */
  readonly clientSide?: true;
  /** Whether running the same call twice is harmless, so a resume or retry may run it again. @default false */
  readonly idempotent: boolean;
  /** Cap on this tool's `tool` message, in characters; `undefined` uses the agent's `maxToolOutputChars`. */
  readonly maxOutputChars?: number | undefined;
  /** Parses and validates the model's `function.arguments` text; an empty string means `{}`. */
  parseArguments(text: string): ParseArgumentsResult<Args>;
  /** Runs the tool with validated arguments. */
  execute(args: Args, ctx: ToolContext<C>): Promise<Out> | Out;
  /** The documents a result drew on (an agent reports them as `source` events and in `result.sources`). */
  // A method, not a property: checked bivariantly, so tools of any output type share one list.
  sources?(output: Out): DocumentSource[];
}

/** A document an answer drew on, e.g. a knowledge-base file; named as the AI SDK's `source-document` parts. */
export interface DocumentSource {
  /** Always `document`. */
  sourceType: 'document';
  /** Id of the source, stable across runs (the search tool uses `<knowledge base id>/<file id>`). */
  id: string;
  /** What to show for it: the document's file name. */
  title: string;
  /** Id of the uploaded file. */
  fileId: string;
  /** How well the document answers the query, 0-1, when the tool measures it (`search_knowledge_base` does). */
  score?: number;
}

/** A tool run by the service itself (web search, knowledge-base retrieval); sent, never executed locally. */
export interface HostedTool {
  /** Always `hosted`. */
  readonly kind: 'hosted';
  /** The wire object sent in the request's `tools`. */
  readonly definition: WebSearchToolDefinition | RetrievalToolDefinition;
}

/** Any tool an agent can be given. */
export type AnyTool = Tool | HostedTool;

/** Tools grouped for a run: local functions by name, hosted tools, and the `tools` array to send. */
export interface ToolSet {
  /** Function tools by name. */
  readonly functions: Map<string, Tool>;
  /** Hosted tools, in the order given. */
  readonly hosted: HostedTool[];
  /** Every definition to send in `tools`, in the order given. */
  readonly definitions: ToolDefinition[];
}

/** Every way a tool call can end, in one list for the type and for the saved-state schemas. */
export const TOOL_CALL_STATUSES = [
  'ok',
  'invalid-arguments',
  'no-such-tool',
  'error',
  'timeout',
  'aborted',
  'rejected',
] as const;

/** How a tool call ended. */
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/** The result of one tool call, ready to become a `tool` message. */
export interface ToolCallOutcome {
  /** The `tool_call_id` answered. */
  toolCallId: string;
  /** The name the model called. */
  toolName: string;
  /** Parsed arguments when they parsed, otherwise the raw arguments text. */
  input: unknown;
  /** How the call ended. */
  status: ToolCallStatus;
  /** What `execute` returned (`undefined` unless status is `ok`). */
  output: unknown;
  /** The `tool` message text the model sees. */
  content: string;
  /** The error behind a non-ok status. */
  error?: Error;
  /** True when the tool's `execute` was started (so running it again would run it twice). */
  executed: boolean;
}

/** Whether a call of `tool` with `args` must be approved by a human first; hosted tools never are. */
export async function resolveNeedsApproval<Args, C>(
  tool: AnyTool,
  args: Args,
  ctx: ToolContext<C>,
): Promise<boolean> {
  if (tool.kind !== 'function') return false;
  const policy = tool.needsApproval;
  if (typeof policy === 'function') return (await policy(args, ctx)) === true;
  return policy === true;
}
