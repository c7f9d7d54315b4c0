import type { ChatCompletion } from '../api/types/chat.js';
import { toRunAudio } from './run-audio.js';
import type { AgentStep, StepFallback } from './run-result.js';
import type { PendingToolCall, RunState } from './run-state.js';
import type { AssistantTurn } from './to-assistant-message.js';
import { addUsage, toAgentUsage } from './usage.js';

/**
 * Records a finished model answer: appends the assistant message to the conversation, the step to the
 * run, the turn's final usage to the total (a stream's usage is cumulative: only the last counts), and
 * its function calls (`pending`, from `prepareToolCalls`) as the run's pending calls.
 */
export function recordStep(
  state: RunState,
  completion: ChatCompletion,
  turn: AssistantTurn,
  pending: PendingToolCall[],
  fallback?: StepFallback,
): AgentStep {
  const usage = toAgentUsage(completion.usage);
  // Plain loops, here and over the calls in prepareToolCalls, settlePendingCalls and executeTurnTools:
  // `.map` at this spot deoptimised runAgent ("wrong map": the last turn's empty array has another
  // elements kind than a turn's array of calls) and V8 recompiled it
  // (bench/results/2026-11-25-stream-leak.md).
  const toolCalls: AgentStep['toolCalls'] = [];
  for (const { toolCallId, toolName, arguments: text, input } of pending) {
    toolCalls.push({ toolCallId, toolName, arguments: text, input });
  }
  const step: AgentStep = {
    index: state.steps.length,
    message: turn.message,
    text: turn.text,
    reasoning: turn.reasoning,
    toolCalls,
    hostedToolCalls: turn.hostedCalls,
    toolResults: [],
    usage,
    finishReason: completion.choices[0]?.finish_reason ?? null,
  };
  if (fallback) step.fallback = fallback;
  // Kept so a stored run tells which model answered it (the run inspector lists and filters by it).
  if (completion.model) step.model = completion.model;
  const audio = toRunAudio(completion.choices[0]?.message.audio);
  if (audio) step.audio = audio;
  state.messages.push(turn.message);
  state.steps.push(step);
  state.usage = addUsage(state.usage, usage);
  state.pendingToolCalls = pending;
  state.turn += 1;
  return step;
}
