import type { AgentEventJson } from '../agent/agent-event-json.js';
import type { AssistantMessage, ChatMessage, ToolCall } from '../api/types/chat.js';
import { formatToolOutput } from '../tools/format-tool-output.js';

/** The tool message of a call the page showed but whose answer it never saw. */
export const STOPPED_CALL_TEXT = 'Not run: the user stopped the answer before this call finished.';

interface ShownStep {
  text: string;
  reasoning: string;
  calls: ToolCall[];
  answers: Map<string, string>;
}

/**
 * The items a run adds to its session, as far as a page saw its events: the run's `input`, then per
 * model turn the assistant message (its text and reasoning so far, the calls it made) and an answer to
 * every call, the tool's own when the page saw it, else {@link STOPPED_CALL_TEXT}, so the history is
 * valid to send again. A sub-agent's events stay inside its call, as on the page.
 */
export function shownItems(input: readonly ChatMessage[], events: readonly AgentEventJson[]): ChatMessage[] {
  const steps: ShownStep[] = [];
  let step: ShownStep | undefined;
  const current = (): ShownStep => {
    if (!step) {
      step = { text: '', reasoning: '', calls: [], answers: new Map() };
      steps.push(step);
    }
    return step;
  };
  const answer = (toolCallId: string, content: string) => {
    steps.find((s) => s.calls.some((call) => call.id === toolCallId))?.answers.set(toolCallId, content);
  };
  for (const event of events) {
    if (event.type === 'start-step') step = undefined;
    else if (event.type === 'text-delta') current().text += event.text;
    else if (event.type === 'reasoning-delta') current().reasoning += event.text;
    else if (event.type === 'tool-call')
      current().calls.push({
        id: event.toolCallId,
        type: 'function',
        function: { name: event.toolName, arguments: JSON.stringify(event.input ?? {}) },
      });
    else if (event.type === 'tool-result') answer(event.toolCallId, formatToolOutput(event.output));
    else if (event.type === 'tool-error') answer(event.toolCallId, event.error.message);
  }
  const items: ChatMessage[] = [...input];
  for (const { text, reasoning, calls, answers } of steps) {
    if (text === '' && reasoning === '' && calls.length === 0) continue;
    const message: AssistantMessage = { role: 'assistant', content: text === '' ? null : text };
    if (reasoning !== '') message.reasoning = reasoning;
    if (calls.length > 0) message.tool_calls = calls;
    items.push(message);
    for (const call of calls)
      items.push({ role: 'tool', tool_call_id: call.id, content: answers.get(call.id) ?? STOPPED_CALL_TEXT });
  }
  return items;
}
