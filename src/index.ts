/**
 * svc-agents: tool-calling agents on the svc Inference and Knowledge Service.
 * Every public export is listed by name; internals (the tool executor, the call ledger, output formatting,
 * `DEFAULT_*` constants) stay unexported on purpose and are imported from their modules by the agent and tests.
 * The emulator lives in its own entry, `svc-agents/emulator`, so the main import stays light.
 */

// Agent
export { Agent, type AgentInput } from './agent/agent.js';
// Composition: agents as tools, handoffs, guardrails, tools per step
export type { AgentToolOptions } from './agent/agent-as-tool.js';
// Web: the SSE options of `stream.toResponse()` / `stream.pipeTo(res)`; the rest lives in svc-agents/web.
export type { AgentEventJson, SerializedError } from './agent/agent-event-json.js';
export type { AgentHooks } from './agent/agent-hooks.js';
export type {
  AgentInstrumentation,
  RunInstrumentation,
  RunInstrumentationInfo,
} from './agent/agent-instrumentation.js';
export type { AgentOptions, AgentResumeOptions, AgentRunOptions } from './agent/agent-options.js';
export { AgentStream } from './agent/agent-stream.js';
export { type ApprovalDecision, checkApprovalDecisions } from './agent/approval-decision.js';
export type { ContextOverflowEvent } from './agent/context/context-overflow-event.js';
export type {
  ContextStrategy,
  ContextStrategyInput,
  ContextSummaryOptions,
  ContextWindowOptions,
} from './agent/context/context-window-options.js';
export type { ModelPrice, PriceTable } from './agent/cost/price-table.js';
export type {
  RunQuery,
  RunQueryPage,
  RunQueryStore,
  RunSortKey,
  RunSummary,
} from './agent/durable/run-query.js';
// Durable runs (stores in `svc-agents/stores`, workers in `svc-agents/queue`), and the shared state a chat
// on several servers keeps in its store (run event logs, signals, compare-and-set values)
export type {
  RunEventLogStore,
  RunRecord,
  RunStatus,
  RunStore,
  SessionStore,
  SharedValueStore,
  SignalStore,
  Store,
  StoredRunEvent,
  VersionedValue,
} from './agent/durable/store.js';
export type { DynamicTools, DynamicToolsArgs } from './agent/dynamic-tools.js';
export {
  AgentOptionsError,
  ContextWindowExceededError,
  GuardrailTripwireError,
  MaxTurnsExceededError,
  OutputValidationError,
  RunConflictError,
  RunStateError,
  ToolApprovalError,
} from './agent/errors.js';
export type {
  AbortEvent,
  AgentEvent,
  AgentEventMap,
  AgentEventType,
  AudioDeltaEvent,
  ErrorEvent,
  FinishEvent,
  FinishStepEvent,
  HandoffEvent,
  HostedToolCallEvent,
  ModelFallbackEvent,
  ReasoningDeltaEvent,
  SourceEvent,
  StartEvent,
  StartStepEvent,
  SubAgentEvent,
  TextDeltaEvent,
  ToolApprovalRequestEvent,
  ToolCallEvent,
  ToolErrorEvent,
  ToolInputDeltaEvent,
  ToolInputStartEvent,
  ToolResultEvent,
} from './agent/events.js';
export {
  type DefineGuardrailOptions,
  defineGuardrail,
  type Guardrail,
  type GuardrailArgs,
  type GuardrailVerdict,
} from './agent/guardrails/guardrail.js';
export {
  type Handoff,
  type HandoffInputFilter,
  type HandoffOptions,
  handoff,
  handoffFilters,
} from './agent/handoffs/handoff.js';
export type { CreateChatCompletion } from './agent/loop/call-model.js';
export type { ModelSettings } from './agent/model-settings.js';
export type { BudgetLease, BudgetRequest, RequestBudget } from './agent/request-budget.js';
export { type RunAudio, writeWavFile } from './agent/run-audio.js';
export type {
  AgentStep,
  CompletedRunResult,
  InterruptedRunResult,
  RunResult,
  StepFallback,
  StepToolCall,
  StepToolResult,
  ToolApprovalItem,
  ToolCallApprovalTiming,
} from './agent/run-result.js';
export { type PendingToolCall, RunState } from './agent/run-state.js';
export type { SseStreamOptions } from './agent/server-sse/sse-stream-options.js';
// When each part of a run happened, kept in its state (what the run inspector draws).
export type { RunFault, RunResume, StepFallbackMove, StepRetry, StepTiming } from './agent/step-timing.js';
export {
  allOf,
  anyOf,
  hasToolCall,
  isRepeatedToolCall,
  isStepCount,
  type StopCondition,
} from './agent/stop-conditions.js';
export type { AgentUsage } from './agent/usage.js';
// Client
export { ChatCompletionAccumulator } from './api/chat/chat-completion-accumulator.js';
export { ChatCompletionStream, type ChunkWithUpdates } from './api/chat/chat-completion-stream.js';
export type { ChunkUpdate } from './api/chat/chunk-update.js';
export { contextWindowOf, defaultContextWindows } from './api/context-windows.js';
export {
  FileProcessingError,
  PartInputError,
  type RequestValidationCode,
  RequestValidationError,
  type RequestValidationIssue,
} from './api/errors.js';
export { CursorPage } from './api/pagination/cursor-page.js';
export { ListPage, ListPromise } from './api/pagination/list-promise.js';
export { PagePromise } from './api/pagination/page-promise.js';
export { type AudioPart, audioPart } from './api/parts/audio-part.js';
export {
  type AudioFormat,
  detectAudioFormat,
  detectImageFormat,
  type ImageFormat,
} from './api/parts/detect-media-format.js';
export { type ImagePart, type ImagePartOptions, imagePart } from './api/parts/image-part.js';
export { type TextPart, textPart } from './api/parts/text-part.js';
export { type VideoPart, videoPart } from './api/parts/video-part.js';
export type { ChatCompletions } from './api/resources/chat-completions.js';
export type { Files } from './api/resources/files.js';
export type { Images } from './api/resources/images.js';
export type { Messages } from './api/resources/messages.js';
export type { Models } from './api/resources/models.js';
export type { Tokens } from './api/resources/tokens.js';
export type { VectorStoreFiles } from './api/resources/vector-store-files.js';
export type { VectorStores } from './api/resources/vector-stores.js';
export type { Audio, Voices } from './api/resources/voices.js';
export { SvcClient, type SvcClientOptions } from './api/svc-client.js';
export type {
  AssistantMessage,
  AudioOutputParams,
  ChatCompletion,
  ChatCompletionChoice,
  ChatCompletionChunk,
  ChatCompletionChunkChoice,
  ChatCompletionCreateParams,
  ChatCompletionDelta,
  ChatCompletionMessage,
  ChatMessage,
  ContentPart,
  FinishReason,
  FunctionParameters,
  FunctionToolDefinition,
  HostedToolCall,
  ResponseFormat,
  RetrievalToolDefinition,
  SystemMessage,
  ToolCall,
  ToolCallDelta,
  ToolDefinition,
  ToolMessage,
  Usage,
  UserMessage,
  WebSearchResult,
  WebSearchToolDefinition,
} from './api/types/chat.js';
export type {
  FileDeleted,
  FileList,
  FileListParams,
  FileObject,
  FilePurpose,
  FileStatus,
  FileUploadParams,
  Uploadable,
  WaitUntilReadyOptions,
} from './api/types/files.js';
export type { GeneratedImage, ImageGenerateParams, ImageGeneration, ImageSize } from './api/types/images.js';
export type { CursorPageQuery, CursorPageResponse, ListResponse } from './api/types/lists.js';
export type {
  MessagesContentBlock,
  MessagesCountTokensParams,
  MessagesMessage,
  MessagesTokenCount,
  MessagesTool,
} from './api/types/messages.js';
export type { Model, ModelList } from './api/types/models.js';
export type { Channel, RequestOptions } from './api/types/request-options.js';
export type {
  TokenCount,
  TokenCountContentPart,
  TokenCountParams,
  TokenCountUserMessage,
} from './api/types/tokens.js';
export type {
  VectorStore,
  VectorStoreCreateParams,
  VectorStoreDeleted,
  VectorStoreFile,
  VectorStoreFileBatch,
  VectorStoreFileCounts,
  VectorStoreFileCreateOptions,
  VectorStoreFileCreateParams,
  VectorStoreFileDeleted,
  VectorStoreFileListParams,
  VectorStoreListParams,
  VectorStoreType,
} from './api/types/vector-stores.js';
export type {
  Voice,
  VoiceCreated,
  VoiceCreateParams,
  VoiceListParams,
  VoiceModel,
} from './api/types/voices.js';
export { type Clock, systemClock } from './core/clock.js';
// Transport
// The defaults shared by the library, the CLI and the web server (queue name, key prefix, schemas, ports).
export { defaults, type NamespaceNames, namespaceNames } from './core/defaults.js';
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ContentModerationError,
  InternalServerError,
  InvalidResponseError,
  MissingDependencyError,
  ModelBehaviorError,
  ModuleLoadError,
  NotFoundError,
  PaymentRequiredError,
  RateLimitError,
  RuntimeConditionError,
  SvcError,
  UserError,
} from './core/errors.js';
// Tools
export { type FileToolName, type FileToolsOptions, fileTools } from './tools/built-in/file-tools.js';
export {
  type KnowledgeBaseToolName,
  type KnowledgeBaseToolsOptions,
  knowledgeBaseTools,
} from './tools/built-in/knowledge-base-tools.js';
export {
  DEFAULT_SEARCH_MODEL,
  type KnowledgeBaseSearchResult,
  type SearchKnowledgeBaseOptions,
  type SearchKnowledgeBaseOutput,
  type SearchResultFile,
  searchKnowledgeBaseTool,
} from './tools/built-in/search-knowledge-base.js';
export { defaultSecretFilePatterns } from './tools/built-in/secret-files.js';
export type { ToolSelection } from './tools/built-in/select-tools.js';
export { type DefineToolOptions, defineTool } from './tools/define-tool.js';
export {
  InvalidToolArgumentsError,
  KnowledgeBaseNameError,
  type KnowledgeBaseNameProblem,
  NoSuchToolError,
  PathOutsideRootError,
  type ToolArgumentIssue,
  ToolDefinitionError,
  ToolExecutionError,
  ToolOutputTypeError,
  ToolTimeoutError,
} from './tools/errors.js';
export { hostedTools, type RetrievalToolOptions, type WebSearchToolOptions } from './tools/hosted-tools.js';
export type {
  AnyTool,
  DocumentSource,
  HostedTool,
  NeedsApproval,
  ParseArgumentsResult,
  Tool,
  ToolCallOutcome,
  ToolCallStatus,
  ToolContext,
} from './tools/tool.js';
export type {
  InferToolArgs,
  JsonSchemaParameters,
  ToolParameters,
  Zod3Schema,
} from './tools/tool-parameters.js';
export type { ClientOptions } from './transport/client-options.js';
export type { RetryInfo } from './transport/send-with-retry.js';
