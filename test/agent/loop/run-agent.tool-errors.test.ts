import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolMessage } from '../../../src/api/types/chat.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { collect } from '../../helpers/collect.js';
import { createRecordingTool } from '../../helpers/create-recording-tool.js';
import { createTestAgent } from '../../helpers/create-test-agent.js';
import { useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

describe('runAgent', () => {
  describe('when a tool fails in the ways a model can fix', () => {
    it('should tell the model (bad arguments, unknown tool, throwing tool) and go on', async () => {
      const strict = defineTool({
        name: 'get_weather',
        description: 'Weather',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => city,
      });
      const broken = createRecordingTool('broken', {
        execute: () => {
          throw new Error('disk on fire');
        },
      });
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [
              { id: 'c1', function: { name: 'get_weather', arguments: '{"city":42}' } },
              { id: 'c2', function: { name: 'nope', arguments: '{}' } },
              { id: 'c3', function: { name: 'broken', arguments: '{}' } },
            ],
          },
        },
        { message: { content: 'Sorry.' } },
      ]);
      const stream = createTestAgent(env, { tools: [strict, broken.tool] }).stream('x');
      const events = await collect(stream);
      const result = await stream.result;
      expect(events.filter((event) => event.type === 'tool-error').map((event) => event.toolCallId)).toEqual([
        'c1',
        'c2',
        'c3',
      ]);
      expect(result.steps[0]?.toolResults.map((r) => r.status)).toEqual([
        'invalid-arguments',
        'no-such-tool',
        'error',
      ]);
      const toolMessages = result.messages.filter((m): m is ToolMessage => m.role === 'tool');
      expect(toolMessages.map((m) => m.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
      expect(toolMessages[2]?.content).toContain('disk on fire');
      expect(result.text).toBe('Sorry.');
    });
  });

  describe('when a tool times out', () => {
    it('should answer the call with a timed-out tool message and go on', async () => {
      const stuck = createRecordingTool('stuck', { timeoutMs: 50, execute: () => new Promise(() => {}) });
      env.emu.script([
        {
          message: { content: '', tool_calls: [{ id: 't1', function: { name: 'stuck', arguments: '{}' } }] },
        },
        { message: { content: 'It hung.' } },
      ]);
      const result = await createTestAgent(env, { tools: [stuck.tool] }).run('x');
      expect(result.steps[0]?.toolResults[0]?.status).toBe('timeout');
      expect(result.messages[2]).toEqual({
        role: 'tool',
        tool_call_id: 't1',
        content: expect.stringMatching(/timed out/i),
      });
      expect(result.text).toBe('It hung.');
    });
  });
});
