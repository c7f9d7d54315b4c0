import type { ChatMessage } from '../../api/types/chat.js';

/** The conversation outgrew the context window and was shrunk before a request. */
export interface ContextOverflowEvent {
  type: 'context-overflow';
  /** Index of the step whose request was shrunk. */
  step: number;
  /** `budget`: the agent's own measure was over; `rejected`: the service answered "input too long" (retried once). */
  reason: 'budget' | 'rejected';
  /** Strategy that shrank it. */
  strategy: 'truncate' | 'summarize' | 'custom';
  /** Input tokens allowed. */
  budget: number;
  /** Input tokens before and after (instructions and tool definitions included). */
  tokensBefore: number;
  tokensAfter: number;
  /** Messages removed from the conversation, oldest first. */
  dropped: ChatMessage[];
  /** The summary message that replaced them (`summarize`). */
  summary?: ChatMessage;
  /** Tool results cut with a marker: call id and sizes in tokens. */
  cutToolResults: Array<{ toolCallId: string; tokensBefore: number; tokensAfter: number }>;
}
