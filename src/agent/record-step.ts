import type { ChatCompletion } from '../api/types/chat.js';
import { toRunAudio } from './run-audio.js';
import type { AgentStep } from './run-result.js';
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
): AgentStep {
  const usage = toAgentUsage(completion.usage);
  const step: AgentStep = {
    index: state.steps.length,
    message: turn.message,
    text: turn.text,
    reasoning: turn.reasoning,
    toolCalls: pending.map(({ toolCallId, toolName, arguments: text, input }) => ({
      toolCallId,
      toolName,
      arguments: text,
      input,
    })),
    hostedToolCalls: turn.hostedCalls,
    toolResults: [],
    usage,
    finishReason: completion.choices[0]?.finish_reason ?? null,
  };
  const audio = toRunAudio(completion.choices[0]?.message.audio);
  if (audio) step.audio = audio;
  state.messages.push(turn.message);
  state.steps.push(step);
  state.usage = addUsage(state.usage, usage);
  state.pendingToolCalls = pending;
  state.turn += 1;
  return step;
}
