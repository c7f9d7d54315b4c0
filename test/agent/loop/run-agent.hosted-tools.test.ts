import { describe, expect, it } from 'vitest';
import type { ToolMessage } from '../../../src/api/types/chat.js';
import { hostedTools } from '../../../src/tools/hosted-tools.js';
import { collect } from '../../helpers/collect.js';
import { createChunk } from '../../helpers/create-chunk.js';
import { createRecordingTool } from '../../helpers/create-recording-tool.js';
import { createTestAgent } from '../../helpers/create-test-agent.js';
import { chatRequests, useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

describe('runAgent', () => {
  describe('when the service ran a hosted web search', () => {
    it('should report it, never execute it, and leave it out of the assistant message sent back', async () => {
      const lookup = createRecordingTool('web_search_local');
      env.emu.script([
        {
          chunks: [
            createChunk({
              delta: {
                role: 'assistant',
                content: '',
                tool_calls: [
                  {
                    id: 'ws_1',
                    type: 'web_search',
                    function: { name: 'svc_websearch', arguments: '{"q":"news"}', results: [] },
                  },
                ],
              },
            }),
            createChunk({ delta: { role: '', content: 'Here is the news.' }, finish_reason: 'stop' }),
          ],
        },
        { message: { content: 'Follow-up.' } },
      ]);
      const agent = createTestAgent(env, {
        tools: [lookup.tool, hostedTools.webSearch({ description: 'Search the web' })],
      });
      const stream = agent.stream('News?');
      const events = await collect(stream);
      const result = await stream.result;
      expect(events.filter((event) => event.type === 'hosted-tool-call')).toEqual([
        {
          type: 'hosted-tool-call',
          toolType: 'web_search',
          toolCallId: 'ws_1',
          name: 'svc_websearch',
          arguments: '{"q":"news"}',
          results: [],
        },
      ]);
      expect(lookup.calls).toHaveLength(0);
      expect(result.steps).toHaveLength(1);
      expect(result.steps[0]?.hostedToolCalls).toHaveLength(1);
      expect(result.messages[1]).toEqual({ role: 'assistant', content: 'Here is the news.' });
      expect(chatRequests(env.emu)[0]!.tools).toEqual([
        expect.objectContaining({ type: 'function' }),
        { type: 'web_search', function: { description: 'Search the web' } },
      ]);
      await agent.run([...result.messages, { role: 'user', content: 'And?' }]);
      expect(
        chatRequests(env.emu)[1]!.messages.filter((message) => (message as ToolMessage).role === 'tool'),
      ).toEqual([]);
    });
  });

  describe('when the default model runs a hosted web search', () => {
    it.each([true, false])('should report the call before the answer text (stream: %s)', async (stream) => {
      const run = createTestAgent(env, { tools: [hostedTools.webSearch({})] }).stream(
        'Search the web for news',
        {
          stream,
        },
      );
      const events = await collect(run);
      const result = await run.result;
      const types = events.map((event) => event.type);
      expect(types.filter((type) => type === 'hosted-tool-call')).toHaveLength(1);
      expect(types.indexOf('hosted-tool-call')).toBeLessThan(types.indexOf('text-delta'));
      expect(events.find((event) => event.type === 'hosted-tool-call')).toMatchObject({
        toolType: 'web_search',
      });
      expect(result.messages.at(-1)).not.toHaveProperty('tool_calls');
      expect(result.steps).toHaveLength(1);
    });
  });
});
