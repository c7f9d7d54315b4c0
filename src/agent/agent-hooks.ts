import type { ChatMessage } from '../api/types/chat.js';
import type { AgentStep } from './run-result.js';
import type { RunState } from './run-state.js';

/** Lifecycle hooks; each takes one object so fields can be added without breaking callers. */
export interface AgentHooks {
  /** Before each model request; `messages` is what will be sent (without the instructions). */
  onStepStart?(event: {
    step: number;
    messages: readonly ChatMessage[];
    state: RunState;
  }): void | Promise<void>;
  /** After a step's answer and tool results are recorded. */
  onStepFinish?(event: { step: AgentStep; state: RunState }): void | Promise<void>;
}
