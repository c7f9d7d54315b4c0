import { randomBytes } from 'node:crypto';
import { planModelId } from '../api/schemas/model-ids.js';
import type { Channel } from '../api/types/request-options.js';
import { createToolSet } from '../tools/create-tool-set.js';
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS } from '../tools/format-tool-output.js';
import type { ToolSet } from '../tools/tool.js';
import type { AgentHooks } from './agent-hooks.js';
import type { AgentInstrumentation } from './agent-instrumentation.js';
import type { AgentOptions } from './agent-options.js';
import type { NormalizedContextWindow } from './context/context-window-options.js';
import { normalizeContextWindow } from './context/normalize-context-window.js';
import { checkPriceTable, type PriceTable } from './cost/price-table.js';
import { createToolSetResolver, type ResolveToolSet } from './dynamic-tools.js';
import { AgentOptionsError } from './errors.js';
import type { Guardrail } from './guardrails/guardrail.js';
import { createHandoffTools, type HandoffTarget, stopOnHandoff, toHandoffs } from './handoffs/handoff.js';
import { checkKnowledgeBases, withKnowledgeBaseSearch } from './loop/knowledge-base-search.js';
import type { ModelSettings } from './model-settings.js';
import { anyOf, isRepeatedToolCall, type StopCondition } from './stop-conditions.js';

/** Defaults of the agent's options. */
export const defaultAgentOptions = {
  maxTurns: 10,
  toolConcurrency: 8,
  outputName: 'output',
  name: 'agent',
} as const;

/** The agent's options, checked once and with defaults filled in. */
export interface NormalizedAgentOptions {
  model: string;
  /** Models a turn moves to, in order, when `model` is overloaded (from `model: [...]` and `fallbackModels`). */
  fallbackModels: readonly string[];
  channel: Channel;
  instructions: string | undefined;
  toolSet: ToolSet;
  maxTurns: number;
  modelSettings: ModelSettings;
  toolConcurrency: number;
  maxToolOutputChars: number;
  stopWhen: StopCondition;
  hooks: AgentHooks;
  outputName: string;
  generateId: () => string;
  contextWindow: NormalizedContextWindow | undefined;
  instrumentation: AgentInstrumentation | undefined;
  prices: PriceTable | undefined;
  name: string;
  handoffDescription: string | undefined;
  /** Knowledge bases the agent's `search_knowledge_base` searches (already part of `toolSet`). */
  knowledgeBases: readonly string[] | undefined;
  /** Set when `tools` is a function: the loop asks it for each step's tool set. */
  resolveTools: ResolveToolSet | undefined;
  /** Handoff targets, each with the core of the agent that takes over. */
  handoffs: readonly HandoffTarget[];
  inputGuardrails: readonly Guardrail[];
  outputGuardrails: readonly Guardrail[];
}

/** Checks the agent's options (naming the field and rule) and fills in defaults. */
// biome-ignore lint/suspicious/noExplicitAny: any context and output type are fine here.
export function normalizeAgentOptions(options: AgentOptions<any, any>): NormalizedAgentOptions {
  const {
    model: modelOption,
    fallbackModels: fallbackOption = [],
    instructions,
    tools = [],
    maxTurns = defaultAgentOptions.maxTurns,
    modelSettings = {},
    toolConcurrency = defaultAgentOptions.toolConcurrency,
    maxToolOutputChars = DEFAULT_MAX_TOOL_OUTPUT_CHARS,
    stopWhen = [],
    hooks = {},
    outputName = defaultAgentOptions.outputName,
    name = defaultAgentOptions.name,
    handoffs = [],
    inputGuardrails = [],
    outputGuardrails = [],
    channel = 'default',
  } = options;
  const client = options.client as unknown;
  if (typeof client !== 'object' || client === null || !('chat' in client)) {
    throw new AgentOptionsError({ field: 'client', rule: 'required: an SvcClient' });
  }
  const [model, ...listedFallbacks] = typeof modelOption === 'string' ? [modelOption] : (modelOption ?? []);
  if (typeof model !== 'string' || model === '') {
    throw new AgentOptionsError({
      field: 'model',
      rule: 'required: a model name such as "svc-3.5-flash" (or a list, the first one preferred)',
    });
  }
  const fallbackModels = [...listedFallbacks, ...fallbackOption];
  fallbackModels.forEach((fallback, i) => {
    if (typeof fallback !== 'string' || fallback === '') {
      throw new AgentOptionsError({ field: `fallbackModels[${i}]`, rule: 'must be a model name' });
    }
  });
  checkChannel(channel, model);
  if (instructions !== undefined && typeof instructions !== 'string') {
    throw new AgentOptionsError({ field: 'instructions', rule: 'must be a string' });
  }
  checkPositiveInteger('maxTurns', maxTurns);
  checkPositiveInteger('toolConcurrency', toolConcurrency);
  checkPositiveInteger('maxToolOutputChars', maxToolOutputChars);
  const settings = modelSettings as Record<string, unknown>;
  if ('n' in settings && settings.n !== 1 && settings.n !== undefined) {
    throw new AgentOptionsError({
      field: 'modelSettings.n',
      rule: 'an agent follows one answer; n must be 1',
    });
  }
  for (const field of ['model', 'messages', 'tools', 'stream', 'response_format']) {
    if (field in settings) {
      throw new AgentOptionsError({
        field: `modelSettings.${field}`,
        rule: 'set by the agent (use the agent options model, tools, output and agent.stream)',
      });
    }
  }
  if (typeof name !== 'string' || name === '') {
    throw new AgentOptionsError({ field: 'name', rule: 'must be a non-empty string' });
  }
  const conditions = Array.isArray(stopWhen) ? [...stopWhen] : [stopWhen];
  const targets = toHandoffs(handoffs);
  if (targets.length > 0) conditions.push(stopOnHandoff(targets));
  const handoffTools = createHandoffTools(targets);
  const dynamic = typeof tools === 'function';
  const knowledgeBases = checkKnowledgeBases(options.knowledgeBases, dynamic);
  const toolSet = createToolSet(dynamic ? handoffTools : [...tools, ...handoffTools]);
  return {
    model,
    fallbackModels: [...new Set(fallbackModels)].filter((fallback) => fallback !== model),
    channel,
    instructions,
    toolSet: knowledgeBases
      ? withKnowledgeBaseSearch(toolSet, { client: options.client, model, knowledgeBases })
      : toolSet,
    knowledgeBases,
    maxTurns,
    modelSettings,
    toolConcurrency,
    maxToolOutputChars,
    // The repeat guard always applies: a model stuck on one call would otherwise burn every turn.
    stopWhen: anyOf(isRepeatedToolCall(3), ...conditions),
    hooks,
    outputName,
    generateId: options._internal?.generateId ?? generateToolCallId,
    contextWindow: normalizeContextWindow(options.contextWindow),
    instrumentation: checkInstrumentation(options.instrumentation),
    prices: checkPriceTable(options.prices, model),
    name,
    handoffDescription: options.handoffDescription,
    resolveTools: dynamic ? createToolSetResolver(tools, handoffTools) : undefined,
    handoffs: targets,
    inputGuardrails,
    outputGuardrails,
  };
}

/** Checks a positive integer option. */
export function checkPositiveInteger(field: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new AgentOptionsError({ field, rule: `must be an integer >= 1, got ${String(value)}` });
  }
}

/** The plan model lives on its own channel: say what to write instead of letting the request fail. */
function checkChannel(channel: unknown, model: string): void {
  if (channel !== 'default' && channel !== 'plan') {
    throw new AgentOptionsError({
      field: 'channel',
      rule: `must be "default" or "plan", got ${String(channel)}`,
    });
  }
  if (channel === 'default' && model === planModelId) {
    throw new AgentOptionsError({
      field: 'model',
      rule: `"${planModelId}" is served only on the plan channel: new Agent({ client, model: '${planModelId}', channel: 'plan' })`,
    });
  }
  if (channel === 'plan' && model !== planModelId) {
    throw new AgentOptionsError({
      field: 'channel',
      rule: `the plan channel serves only "${planModelId}", not "${model}": set model: '${planModelId}' or leave channel out`,
    });
  }
}

function checkInstrumentation(value: unknown): AgentInstrumentation | undefined {
  if (value === undefined) return undefined;
  if (typeof (value as AgentInstrumentation | null)?.startRun !== 'function') {
    throw new AgentOptionsError({
      field: 'instrumentation',
      rule: 'must have a startRun function, e.g. openTelemetry()',
    });
  }
  return value as AgentInstrumentation;
}

function generateToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}
