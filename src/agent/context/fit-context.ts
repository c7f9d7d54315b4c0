import type { SvcClient } from '../../api/svc-client.js';
import type { ChatMessage, ToolDefinition, ToolMessage } from '../../api/types/chat.js';
import { AgentOptionsError, ContextWindowExceededError } from '../errors.js';
import { neverAborted } from '../loop/run-signal.js';
import type { ContextOverflowEvent } from './context-overflow-event.js';
import type { NormalizedContextWindow } from './context-window-options.js';
import { findUnpairedToolCall, splitTurns } from './conversation-turns.js';
import { cutToolResult } from './cut-tool-result.js';
import { estimateMessageTokens, loadTokenizer, PROMPT_PRIMING_TOKENS } from './local-tokens.js';
import type { MessageTokenCounter } from './message-token-counter.js';
import { isSummaryMessage, summarizeMessages } from './summarize-turns.js';

// A tool result is never cut below this: the model must still see what the tool said.
const MIN_TOOL_RESULT_TOKENS = 64;
// Characters of transcript per token of budget handed to the summarizer (about 4 characters a token, half the budget).
const SUMMARY_CHARS_PER_BUDGET_TOKEN = 2;

/** Options of `fitContext`. */
export interface FitContextOptions {
  /** The run's messages; replaced in place when shrunk. */
  messages: ChatMessage[];
  /** Messages sent before them (the agent's instructions), never dropped. */
  fixed: readonly ChatMessage[];
  tools: readonly ToolDefinition[] | undefined;
  budget: number;
  reason: ContextOverflowEvent['reason'];
  step: number;
  options: NormalizedContextWindow;
  counter: MessageTokenCounter;
  client: SvcClient;
  model: string;
  /** The request's signal; absent when the run has none. */
  signal: AbortSignal | undefined;
}

/** Input tokens of a request and whether the messages fit. */
export interface FitResult {
  /** Input tokens of the request as it now stands. */
  tokens: number;
  /** What was shrunk, when anything was. */
  event: ContextOverflowEvent | undefined;
}

/**
 * Keeps a request under its budget. Tool results bigger than their share of the budget are cut with a
 * marker; when the conversation is still over, the strategy shrinks the older turns to `trimTarget` of the
 * budget (so the next turns fit unchanged and the prompt cache keeps hitting); if the current turn alone
 * is over, its largest tool results are cut further. Instructions, system messages and the current turn
 * are never dropped, and a tool call never loses its tool message.
 */
export async function fitContext(o: FitContextOptions): Promise<FitResult> {
  const { messages, counter, signal } = o;
  const fixedTokens =
    PROMPT_PRIMING_TOKENS + sum(await counter.measure(o.fixed, signal)) + (await counter.toolTokens(o.tools));
  const available = o.budget - fixedTokens;
  if (available <= 0) {
    throw new ContextWindowExceededError({
      tokens: fixedTokens,
      budget: o.budget,
      what: 'instructions and tool definitions',
    });
  }
  let current = [...messages];
  let counts = await counter.measure(current, signal);
  const tokensBefore = fixedTokens + sum(counts);
  const cut: ContextOverflowEvent['cutToolResults'] = [];
  const tokenizer = await loadTokenizer();
  const cutTo = (index: number, limit: number) => {
    const message = current[index] as ToolMessage;
    const result = cutToolResult(message, limit, tokenizer);
    counter.remember(result.message, result.tokens);
    const earlier = cut.find((entry) => entry.toolCallId === message.tool_call_id);
    if (earlier) earlier.tokensAfter = result.tokens;
    else
      cut.push({
        toolCallId: message.tool_call_id,
        tokensBefore: counts[index] ?? 0,
        tokensAfter: result.tokens,
      });
    current[index] = result.message;
    counts[index] = result.tokens;
  };

  const toolLimit = Math.max(MIN_TOOL_RESULT_TOKENS, Math.floor(available * o.options.maxToolResultShare));
  for (const [index, message] of current.entries()) {
    if (message.role === 'tool' && (counts[index] ?? 0) > toolLimit) cutTo(index, toolLimit);
  }

  let dropped: ChatMessage[] = [];
  let summary: ChatMessage | undefined;
  let strategy: ContextOverflowEvent['strategy'] =
    typeof o.options.strategy === 'function' ? 'custom' : o.options.strategy;
  if (sum(counts) > available) {
    const target = Math.floor(available * o.options.trimTarget);
    if (typeof o.options.strategy === 'function') {
      const kept = await o.options.strategy({
        messages: current,
        currentTurnStart: splitTurns(current).currentStart,
        budget: available,
        tokens: sum(counts),
        countTokens: async (some) => sum(await counter.measure(some, signal)),
        signal: signal ?? neverAborted,
      });
      const broken = findUnpairedToolCall(kept);
      if (broken) {
        throw new AgentOptionsError({
          field: 'contextWindow.strategy',
          rule: `must keep every tool call with its tool message; the messages it returned break this: ${broken}`,
        });
      }
      const keptSet = new Set(kept);
      dropped = current.filter((message) => !keptSet.has(message));
      current = kept;
      counts = await counter.measure(current, signal);
    } else {
      ({ dropped, summary } = await dropOlderTurns(o, current, counts, target, (message) =>
        estimateMessageTokens(message, tokenizer),
      ));
      strategy = o.options.strategy;
      if (dropped.length > 0) {
        const droppedSet = new Set(dropped);
        current = current.filter((message) => !droppedSet.has(message));
        if (summary) current.splice(leadingSystemCount(current), 0, summary);
        counts = await counter.measure(current, signal);
      }
    }
  }

  // Still over: only the current turn (and pinned messages) are left; cut its biggest tool results.
  let excess = sum(counts) - available;
  while (excess > 0) {
    let largest = -1;
    for (const [index, message] of current.entries()) {
      if (message.role !== 'tool' || (counts[index] ?? 0) <= MIN_TOOL_RESULT_TOKENS) continue;
      if (largest < 0 || (counts[index] ?? 0) > (counts[largest] ?? 0)) largest = index;
    }
    if (largest < 0) {
      throw new ContextWindowExceededError({
        tokens: fixedTokens + sum(counts),
        budget: o.budget,
        what: 'the instructions, tools and current turn',
      });
    }
    cutTo(largest, Math.max(MIN_TOOL_RESULT_TOKENS, (counts[largest] ?? 0) - excess));
    excess = sum(counts) - available;
  }

  const tokens = fixedTokens + sum(counts);
  if (dropped.length === 0 && cut.length === 0 && !summary) return { tokens, event: undefined };
  messages.splice(0, messages.length, ...current);
  const event: ContextOverflowEvent = {
    type: 'context-overflow',
    step: o.step,
    reason: o.reason,
    strategy,
    budget: o.budget,
    tokensBefore,
    tokensAfter: tokens,
    dropped,
    cutToolResults: cut,
  };
  if (summary) event.summary = summary;
  return { tokens, event };
}

/** Drops the oldest turns (their system messages stay, except earlier summaries) until `target` is met. */
async function dropOlderTurns(
  o: FitContextOptions,
  messages: ChatMessage[],
  counts: number[],
  target: number,
  estimateTokens: (message: ChatMessage) => number,
): Promise<{ dropped: ChatMessage[]; summary: ChatMessage | undefined }> {
  const summarize = o.options.strategy === 'summarize';
  // Room the summary will take: it is counted before choosing how much to drop.
  const summaryRoom = summarize ? o.options.summary.maxTokens + 16 : 0;
  let total = sum(counts) + summaryRoom;
  const dropped: ChatMessage[] = [];
  for (const { start, end } of splitTurns(messages).older) {
    if (total <= target) break;
    for (let i = start; i < end; i++) {
      const message = messages[i] as ChatMessage;
      if (message.role === 'system' && !(summarize && isSummaryMessage(message))) continue;
      dropped.push(message);
      total -= counts[i] ?? 0;
    }
  }
  if (!summarize || dropped.length === 0) return { dropped, summary: undefined };
  const summary = await summarizeMessages(dropped, {
    client: o.client,
    model: o.options.summary.model ?? o.model,
    instructions: o.options.summary.instructions,
    maxTokens: o.options.summary.maxTokens,
    maxChars: Math.max(1000, o.budget * SUMMARY_CHARS_PER_BUDGET_TOKEN),
    signal: o.signal,
  });
  o.counter.remember(summary, estimateTokens(summary));
  return { dropped, summary };
}

function leadingSystemCount(messages: readonly ChatMessage[]): number {
  let count = 0;
  while (messages[count]?.role === 'system' && !isSummaryMessage(messages[count] as ChatMessage)) count += 1;
  return count;
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
