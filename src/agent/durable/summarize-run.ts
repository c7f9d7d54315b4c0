import type { PriceTable } from '../cost/price-table.js';
import type { AgentStep } from '../run-result.js';
import type { AgentUsage } from '../usage.js';
import type { RunSummary } from './run-query.js';
import type { RunRecord } from './store.js';

const TITLE_CHARS = 200;
/** The most characters of a run's messages its summary's search text keeps (see `runSearchText`). */
export const SEARCH_TEXT_CHARS = 16_000;
const PER_MILLION = 1_000_000;
// The web's owner namespace of a stored session id (`u~<32 hex>~<client id>`, src/web/chat-owner.ts):
// read here, below the web layer, to name the owner of a run without importing the web.
const OWNER_NAMESPACE = /^(u~[0-9a-f]{32})~/;

/** Options of `summarizeRun`. */
export interface SummarizeRunOptions {
  /** Prices per model: the cost of a run whose state carries no `usage.cost` (an agent without `prices`). */
  prices?: PriceTable;
}

/**
 * What the run inspector lists of a stored run, derived from its record alone (pure: no store reads):
 * tokens and cost from the state's usage, the model of the last step, the title from the first user
 * message, the tenant from the queue's `record.tenant` or else the web owner of its session id.
 */
export function summarizeRun(record: RunRecord, options: SummarizeRunOptions = {}): RunSummary {
  const state = record.state as { usage?: Partial<AgentUsage>; steps?: AgentStep[]; messages?: unknown[] };
  const steps = Array.isArray(state.steps) ? state.steps : [];
  const usage = state.usage ?? sumUsage(steps);
  const last = steps.at(-1);
  const model = last?.fallback?.model ?? last?.model;
  const costUsd = usage.cost ?? priceSteps(steps, options.prices);
  // The run's own input first: a record that kept the session's history starts with older messages.
  const title = firstUserText(record.session?.input ?? state.messages ?? []);
  const tenant = record.tenant ?? OWNER_NAMESPACE.exec(record.session?.id ?? '')?.[1];
  const input = usage.promptTokens ?? 0;
  const output = usage.completionTokens ?? 0;
  return {
    id: record.id,
    agentName: record.agentName,
    status: record.status,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    durationMs: Math.max(0, record.updatedAt - record.createdAt),
    ...(record.session && { sessionId: record.session.id }),
    ...(tenant !== undefined && { tenant }),
    ...(model !== undefined && { model }),
    tokens: { input, output, cached: usage.cachedTokens ?? 0, total: usage.totalTokens ?? input + output },
    ...(costUsd !== undefined && { costUsd }),
    steps: steps.length,
    ...(title !== undefined && { title: title.slice(0, TITLE_CHARS) }),
    ...(record.error !== undefined && { error: record.error }),
    ...(record.forkedFrom && { forkedFrom: { ...record.forkedFrom } }),
  };
}

/**
 * The lower-cased text of a run's messages (and final answer) that `RunQuery.text` searches, at most
 * `SEARCH_TEXT_CHARS` characters: a very long run is searched in its first messages only.
 */
export function runSearchText(record: RunRecord): string {
  const messages = (record.state as { messages?: unknown[] }).messages ?? [];
  let text = '';
  for (const message of [...messages, { content: record.text }]) {
    const part = messageText(message);
    if (part === '') continue;
    text += `${part}\n`;
    if (text.length >= SEARCH_TEXT_CHARS) break;
  }
  return text.slice(0, SEARCH_TEXT_CHARS).toLowerCase();
}

function messageText(message: unknown): string {
  const content = (message as { content?: unknown } | null)?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      (part as { type?: unknown }).type === 'text' ? String((part as { text?: unknown }).text ?? '') : '',
    )
    .filter((part) => part !== '')
    .join(' ');
}

function firstUserText(messages: readonly unknown[]): string | undefined {
  for (const message of messages) {
    if ((message as { role?: unknown } | null)?.role !== 'user') continue;
    const text = messageText(message).trim();
    if (text !== '') return text;
  }
  return undefined;
}

// States always carry `usage`; this covers a hand-written record without it.
function sumUsage(steps: readonly AgentStep[]): Partial<AgentUsage> {
  const total = { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0 };
  for (const { usage } of steps) {
    total.promptTokens += usage?.promptTokens ?? 0;
    total.completionTokens += usage?.completionTokens ?? 0;
    total.totalTokens += usage?.totalTokens ?? 0;
    total.cachedTokens += usage?.cachedTokens ?? 0;
  }
  return total;
}

// Token prices only: the images and audio seconds `priceStep` also bills are not in a stored step.
function priceSteps(steps: readonly AgentStep[], prices: PriceTable | undefined): number | undefined {
  if (!prices || steps.length === 0) return undefined;
  let cost = 0;
  for (const step of steps) {
    const price = prices[step.fallback?.model ?? step.model ?? ''];
    if (!price) return undefined;
    const { promptTokens, cachedTokens, completionTokens } = step.usage;
    cost +=
      ((promptTokens - cachedTokens) * price.input +
        cachedTokens * (price.cachedInput ?? price.input) +
        completionTokens * price.output) /
      PER_MILLION;
  }
  return cost;
}
