import type { Agent } from '../../agent/agent.js';
import { AGENT_CORE } from '../../agent/agent-core.js';
import { readRunState } from '../../agent/durable/read-run-state.js';
import type { RunRecord, Store } from '../../agent/durable/store.js';
import { buildRequest, systemMessage } from '../../agent/loop/build-request.js';
import type { AgentStep } from '../../agent/run-result.js';
import { RunState } from '../../agent/run-state.js';
import { channelPrefix } from '../../api/resources/chat-completions.js';
import type { ChatCompletion } from '../../api/types/chat.js';
import type { CassetteFile, Interaction } from '../../testing/cassette.js';
import { ChatRequestError } from '../web-error.js';
import { stateBeforeStep } from './run-checkpoints.js';

/** A cassette of a run's steps, with what a test needs to replay it. */
export interface RunCassette extends CassetteFile {
  /** Where it came from, and the input to replay it with: `agent.run(RunState.fromJSON(start, agent))`. */
  run: { runId: string; agentName: string; fromStep: number; toStep: number; start: unknown };
}

/** Options of `exportRunCassette`. */
export interface ExportRunCassetteOptions {
  store: Store;
  record: RunRecord;
  // biome-ignore lint/suspicious/noExplicitAny: an agent of any context and output type.
  agent: Agent<any, any>;
  /** First step exported (0-based). @default 0 */
  fromStep?: number;
  /** Last step exported (inclusive). @default the run's last step */
  toStep?: number;
}

/**
 * The run's model requests of steps `fromStep..toStep` as a replay recording (`svc-agents/testing`'s
 * cassette format): each request rebuilt as `agent` sends it (its model, instructions, tools and settings,
 * not streamed) from the state before the step, answered with the step's stored message and usage. A
 * test replays it with `recordReplay({ mode: 'replay' })` and `agent.run(start)` where `start` is the
 * state before `fromStep` (the run's input for step 0). Tools run again on replay: a tool whose output
 * differs changes the next request, which then misses the recording (use `normalize` for such fields).
 */
export async function exportRunCassette(options: ExportRunCassetteOptions): Promise<RunCassette> {
  const { store, record, agent } = options;
  const { state } = await readRunState(store, record, agent);
  const steps = state.steps;
  const fromStep = options.fromStep ?? 0;
  const toStep = options.toStep ?? steps.length - 1;
  if (steps.length === 0 || fromStep < 0 || toStep >= steps.length || fromStep > toStep) {
    throw new ChatRequestError({
      status: 400,
      message: `from, to: must be steps of run "${record.id}" with from <= to (it has steps 0 to ${steps.length - 1})`,
    });
  }
  const core = agent[AGENT_CORE];
  const { options: agentOptions } = core;
  const output = core.output();
  const system = systemMessage(agentOptions.instructions, output?.request);
  const path = `${channelPrefix[agentOptions.channel]}/chat/completions`;
  const interactions: Interaction[] = [];
  for (let index = fromStep; index <= toStep; index++) {
    const before = stateBeforeStep(state.messages, steps, index);
    if (!before) {
      throw new ChatRequestError({
        status: 400,
        message: `to: the state before step ${index} cannot be derived (a handoff filter or a trimmed history changed the messages); export up to step ${index - 1}`,
      });
    }
    const step = steps[index]!;
    const params = buildRequest({
      model: agentOptions.model,
      system,
      messages: before.messages,
      tools: agentOptions.toolSet.definitions,
      modelSettings: agentOptions.modelSettings,
      output: output?.request,
      stream: false,
    });
    interactions.push({
      request: { method: 'POST', path, body: JSON.parse(JSON.stringify(params)) as unknown },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: completionOf(step, record.id),
      },
    });
  }
  const start = stateBeforeStep(state.messages, steps, fromStep)!;
  const startState = new RunState({
    messages: start.messages,
    steps: start.steps,
    usage: start.usage,
    turn: fromStep,
  });
  return {
    version: 1,
    interactions,
    run: { runId: record.id, agentName: record.agentName, fromStep, toStep, start: startState.toJSON() },
  };
}

/** The non-streamed completion that answered `step`, as the service sent it. */
function completionOf(step: AgentStep, runId: string): ChatCompletion {
  const { usage } = step;
  return {
    id: `chatcmpl-${runId}-${step.index}`,
    object: 'chat.completion',
    created: Math.floor((step.timing?.doneAt ?? 0) / 1000),
    model: step.fallback?.model ?? step.model ?? '',
    choices: [
      {
        index: 0,
        message: step.message as ChatCompletion['choices'][number]['message'],
        finish_reason: step.finishReason,
      },
    ],
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.totalTokens,
      ...(usage.cachedTokens > 0 && { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }),
    },
  };
}
