import type { Checkpoint, WireMessage, WireStep } from './api-types.js';
import { contentText, el, formatUsd, jsonBlock } from './dom.js';

// The run's conversation as a chat with tool cards, and the state after each step with its diff.

/** The conversation as a chat, each assistant turn with its tool calls as cards holding their results. */
export function renderChat(messages: WireMessage[], steps: WireStep[], historyEnd: number): HTMLElement {
  const results = new Map<string, WireStep['toolResults'][number]>();
  for (const step of steps) for (const result of step.toolResults) results.set(result.toolCallId, result);
  const answered = new Map<string, string>();
  for (const message of messages)
    if (message.role === 'tool' && message.tool_call_id)
      answered.set(message.tool_call_id, contentText(message.content));
  const list = el('ol', { className: 'chat' });
  messages.forEach((message, index) => {
    if (message.role === 'tool') return;
    const item = el('li', { className: `msg ${message.role}`, 'data-index': index });
    item.append(
      el('p', { className: 'who' }, `${message.role}${index < historyEnd ? ' (session history)' : ''}`),
    );
    if (message.reasoning)
      item.append(el('details', {}, el('summary', {}, 'Reasoning'), el('pre', {}, message.reasoning)));
    const text = contentText(message.content);
    if (text) item.append(el('div', { className: 'text' }, text));
    for (const call of message.tool_calls ?? []) {
      const result = results.get(call.id);
      const status = result?.status ?? (answered.has(call.id) ? 'answered' : 'pending');
      item.append(
        el(
          'div',
          { className: `toolcard ${status}`, 'data-tool-call': call.id },
          el('strong', {}, call.function.name ?? 'tool'),
          ` · ${status}`,
          el('pre', {}, call.function.arguments ?? ''),
          answered.has(call.id)
            ? el('details', {}, el('summary', {}, 'Result'), el('pre', {}, answered.get(call.id)!))
            : '',
        ),
      );
    }
    list.append(item);
  });
  return list;
}

/** Each checkpoint: its figures, the diff to the one before, and the state (on demand). */
export function renderCheckpoints(checkpoints: Checkpoint[], steps: WireStep[]): HTMLElement {
  if (checkpoints.length === 0) return el('p', { className: 'muted' }, 'No step finished yet.');
  const list = el('ol', { className: 'chat' });
  for (const checkpoint of checkpoints) {
    const step = steps[checkpoint.step];
    const diff = el(
      'ul',
      { className: 'diff' },
      ...checkpoint.diff.map((change) =>
        el(
          'li',
          { className: change.kind },
          `${change.kind === 'added' ? '+' : change.kind === 'removed' ? '−' : '~'} ${change.path}: `,
          el('code', {}, preview(change.kind === 'removed' ? change.before : change.after)),
        ),
      ),
    );
    list.append(
      el(
        'li',
        { className: 'msg', 'data-checkpoint': checkpoint.step },
        el(
          'details',
          { id: `checkpoint-${checkpoint.step}` },
          el(
            'summary',
            {},
            `After step ${checkpoint.step}: ${checkpoint.messageCount} messages, ${checkpoint.usage.totalTokens} tokens (${step?.usage.totalTokens ?? 0} this step, ${step?.usage.cachedTokens ?? 0} cached)${step?.usage.cost !== undefined ? `, ${formatUsd(step.usage.cost)}` : ''}`,
          ),
          el('p', { className: 'muted' }, 'Diff to the previous checkpoint:'),
          diff,
          el(
            'details',
            {},
            el('summary', {}, 'State'),
            jsonBlock({
              turn: checkpoint.turn,
              messageCount: checkpoint.messageCount,
              usage: checkpoint.usage,
            }),
          ),
        ),
      ),
    );
  }
  return list;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
