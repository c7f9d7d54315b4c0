import fc from 'fast-check';
import { encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { findUnpairedToolCall, splitTurns } from '../../../src/agent/context/conversation-turns.js';
import { cutToolResult } from '../../../src/agent/context/cut-tool-result.js';
import type { ChatMessage, ToolMessage } from '../../../src/api/types/chat.js';

/** A conversation of user turns, each with 0-2 tool rounds of 1-3 calls, then a final answer. */
const conversation = fc
  .array(fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 2 }), { minLength: 1, maxLength: 12 })
  .map((turns) => {
    const messages: ChatMessage[] = [{ role: 'system', content: 'Pinned' }];
    let id = 0;
    for (const [t, rounds] of turns.entries()) {
      messages.push({ role: 'user', content: `question ${t}` });
      for (const calls of rounds) {
        const ids = Array.from({ length: calls }, () => `call_${id++}`);
        messages.push({
          role: 'assistant',
          content: null,
          tool_calls: ids.map((callId) => ({
            id: callId,
            type: 'function',
            function: { name: 'f', arguments: '{}' },
          })),
        });
        for (const callId of ids) messages.push({ role: 'tool', tool_call_id: callId, content: 'r' });
      }
      messages.push({ role: 'assistant', content: `answer ${t}` });
    }
    return messages;
  });

describe('splitTurns', () => {
  it('should make every drop of whole older turns keep tool calls paired and the current turn whole', () => {
    fc.assert(
      fc.property(conversation, fc.nat(), (messages, seed) => {
        const { currentStart, older } = splitTurns(messages);
        expect(messages[currentStart]?.role).toBe('user');
        // Drop any subset of older turns (their system messages stay, as the strategies do).
        const dropped = new Set<ChatMessage>();
        older.forEach(({ start, end }, index) => {
          if (((seed >> index) & 1) === 0) return;
          for (let i = start; i < end; i++)
            if (messages[i]?.role !== 'system') dropped.add(messages[i] as ChatMessage);
        });
        const kept = messages.filter((message) => !dropped.has(message));
        expect(findUnpairedToolCall(kept)).toBeUndefined();
        expect(kept.slice(-(messages.length - currentStart))).toEqual(messages.slice(currentStart));
      }),
    );
  });
});

describe('findUnpairedToolCall', () => {
  const call = (id: string): ChatMessage => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }],
  });
  const result = (id: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content: 'r' });

  it('should name a tool message without its call, and a call without its tool message', () => {
    expect(findUnpairedToolCall([{ role: 'user', content: 'q' }, result('a')])).toBe(
      'messages[1] (tool): "a" answers no tool call of the assistant message before it',
    );
    expect(findUnpairedToolCall([call('a'), { role: 'user', content: 'q' }])).toBe(
      'messages[0] (assistant): tool call a has no tool message',
    );
    expect(findUnpairedToolCall([call('a'), result('a'), { role: 'user', content: 'q' }])).toBeUndefined();
  });
});

describe('cutToolResult', () => {
  const tokenizer = import('gpt-tokenizer');

  it('should keep the beginning, say what was removed, and fit the limit', async () => {
    const content = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ');
    const message: ToolMessage = { role: 'tool', tool_call_id: 'call_1', content };
    const cut = cutToolResult(message, 500, await tokenizer);
    expect(cut.tokens).toBeLessThanOrEqual(500);
    expect(cut.message.tool_call_id).toBe('call_1');
    expect(content.startsWith(cut.message.content.slice(0, 200))).toBe(true);
    const removed = Number(
      /\[truncated: ([\d,]+) of ([\d,]+) tokens cut/.exec(cut.message.content)?.[1]?.replaceAll(',', ''),
    );
    expect(removed).toBeGreaterThan(encode(content).length - 500);
  });
});
