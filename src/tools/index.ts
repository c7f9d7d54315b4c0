/** Tools: zod-typed definitions, safe execution with timeouts and a ledger, built-in and hosted tools. */
export { type FileToolName, type FileToolsOptions, fileTools } from './built-in/file-tools.js';
export {
  type KnowledgeBaseToolName,
  type KnowledgeBaseToolsOptions,
  knowledgeBaseTools,
} from './built-in/knowledge-base-tools.js';
export { PathOutsideRootError } from './built-in/resolve-inside-root.js';
export type { ToolSelection } from './built-in/select-tools.js';
export { createRejectedOutcome } from './create-rejected-outcome.js';
export { createToolSet, toolNameOf } from './create-tool-set.js';
export {
  DEFAULT_TOOL_TIMEOUT_MS,
  type DefineToolOptions,
  defineTool,
  TOOL_NAME_PATTERN,
} from './define-tool.js';
export { InvalidToolArgumentsError, type ToolArgumentIssue } from './errors/invalid-tool-arguments-error.js';
export { NoSuchToolError } from './errors/no-such-tool-error.js';
export { ToolDefinitionError } from './errors/tool-definition-error.js';
export { ToolExecutionError } from './errors/tool-execution-error.js';
export { ToolTimeoutError } from './errors/tool-timeout-error.js';
export { type ExecuteToolCallOptions, executeToolCall, type ToolErrorMode } from './execute-tool-call.js';
export {
  DEFAULT_TOOL_CONCURRENCY,
  type ExecuteToolCallsOptions,
  executeToolCalls,
} from './execute-tool-calls.js';
export { formatToolOutput } from './format-tool-output.js';
export {
  DEFAULT_RETRIEVAL_PROMPT_TEMPLATE,
  DEFAULT_WEB_SEARCH_DESCRIPTION,
  hostedTools,
  type RetrievalToolOptions,
  type WebSearchToolOptions,
} from './hosted-tools.js';
export { resolveNeedsApproval } from './resolve-needs-approval.js';
export type {
  AnyTool,
  HostedTool,
  NeedsApproval,
  ParseArgumentsResult,
  Tool,
  ToolCallOutcome,
  ToolCallStatus,
  ToolContext,
  ToolSet,
} from './tool.js';
export {
  type SerializedToolCallOutcome,
  ToolCallLedger,
  type ToolCallLedgerJSON,
} from './tool-call-ledger.js';
export type { InferToolArgs, JsonSchemaParameters, ToolParameters, Zod3Schema } from './tool-parameters.js';
