import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { AgentOptions } from '../../src/agent/agent-options.js';
import type { AgentEvent } from '../../src/agent/events.js';
import type { RunState } from '../../src/agent/run-state.js';
import type { ToolMessage } from '../../src/api/types/chat.js';
import { APIUserAbortError, InternalServerError } from '../../src/core/errors.js';
import { createChunk } from '../helpers/create-chunk.js';
import { createRecordingTool } from '../helpers/create-recording-tool.js';
import { toolTurn } from '../helpers/tool-turn.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

// The goal is 100 ms; tests allow a generous 1 s so a loaded CI machine does not flake.
const ABORT_BOUND_MS = 1000;

function createAgent(tools: AgentOptions['tools'] = []) {
  return new Agent({ client: env.client, model: 'svc-3.5-flash', tools });
}

function slowTextChunks(pieces: number) {
  return {
    chunks: [
      createChunk({ delta: { role: 'assistant', content: '' } }),
      ...Array.from({ length: pieces }, (_, i) => createChunk({ delta: { role: '', content: `w${i} ` } })),
      createChunk({ delta: { role: '', content: 'end' }, finish_reason: 'stop' }),
    ],
  };
}

describe('resuming and aborting runs', () => {
  describe('when the service fails with a 500 after a tool ran', () => {
    it('should throw with error.state and resume without running the finished tool again', async () => {
      const weather = createRecordingTool('get_weather');
      env.emu.script([toolTurn(['c1', 'get_weather']), { error: { status: 500 } }]);
      const agent = createAgent([weather.tool]);
      const error = (await agent.run('Paris?').catch((e: unknown) => e)) as InternalServerError & {
        state: RunState;
      };
      expect(error).toBeInstanceOf(InternalServerError);
      expect(weather.calls).toHaveLength(1);
      expect(error.state.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
      expect(Object.keys(error)).not.toContain('state');
      const json = JSON.stringify(error);
      expect(json).not.toContain(env.emu.apiKey);
      expect(json).not.toContain('get_weather');

      env.emu.script([{ message: { content: 'Sunny.' } }]);
      const result = await agent.run(error.state);
      expect(result.text).toBe('Sunny.');
      expect(weather.calls).toHaveLength(1);
      expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(chatRequests(env.emu).at(-1)!.messages).toHaveLength(3);
      expect(result.usage.totalTokens).toBeGreaterThan(0);
    });
  });

  describe('when stream.abort() is called while the answer streams', () => {
    it('should end with an abort event and APIUserAbortError carrying state, within the bound', async () => {
      env.emu.setFaults([{ dripMs: 150, path: '/chat/completions' }]);
      env.emu.script([slowTextChunks(30)]);
      const stream = createAgent().stream('Tell me a long story');
      const events: AgentEvent[] = [];
      let abortedAt = 0;
      let caught: unknown;
      try {
        for await (const event of stream) {
          events.push(event);
          if (event.type === 'text-delta' && !abortedAt) {
            abortedAt = performance.now();
            stream.abort();
          }
        }
      } catch (error) {
        caught = error;
      }
      const elapsed = performance.now() - abortedAt;
      expect(elapsed).toBeLessThan(ABORT_BOUND_MS);
      expect(caught).toBeInstanceOf(APIUserAbortError);
      expect(events.at(-1)?.type).toBe('abort');
      expect(events.some((event) => event.type === 'finish')).toBe(false);
      const state = (caught as { state: RunState }).state;
      // The cut answer is not part of the history; resuming asks again.
      expect(state.messages).toEqual([{ role: 'user', content: 'Tell me a long story' }]);
      await expect(stream.result).rejects.toBe(caught);
    });
  });

  describe('when the caller aborts while tools run', () => {
    it('should stop a tool ignoring its signal within the bound, keep finished results and answer the rest as cancelled', async () => {
      const fast = createRecordingTool('fast');
      let toolSignal: AbortSignal | undefined;
      const stuck = createRecordingTool('stuck', {
        execute: async (_args, ctx) => {
          toolSignal = ctx.signal;
          // A tool that ignores its signal for 5 s: the run must still end at the abort.
          await new Promise((resolve) => setTimeout(resolve, 5_000));
          return 'too late';
        },
      });
      env.emu.script([toolTurn(['c_fast', 'fast'], ['c_stuck', 'stuck'])]);
      const controller = new AbortController();
      const stream = createAgent([fast.tool, stuck.tool]).stream('go', { signal: controller.signal });
      let abortedAt = 0;
      stream.on('tool-result', (event) => {
        if (event.toolCallId === 'c_fast') {
          abortedAt = performance.now();
          controller.abort(new Error('user pressed stop'));
        }
      });
      const error = (await stream.result.catch((e: unknown) => e)) as APIUserAbortError & { state: RunState };
      expect(performance.now() - abortedAt).toBeLessThan(ABORT_BOUND_MS);
      expect(error).toBeInstanceOf(APIUserAbortError);
      expect(error.message).toContain('user pressed stop');
      expect(toolSignal?.aborted).toBe(true);
      const toolMessages = error.state.messages.filter((m): m is ToolMessage => m.role === 'tool');
      expect(toolMessages.map((m) => [m.tool_call_id, m.content])).toEqual([
        ['c_fast', 'fast ok {}'],
        // It ignored its signal: it may still finish its side effect, so "cancelled" would be a lie.
        ['c_stuck', expect.stringContaining('may have taken effect')],
      ]);

      env.emu.script([{ message: { content: 'Stopped early.' } }]);
      const result = await createAgent([fast.tool, stuck.tool]).run(error.state);
      expect(result.text).toBe('Stopped early.');
      expect(fast.calls).toHaveLength(1);
      expect(stuck.calls).toHaveLength(1);
    });
  });

  describe('when the consumer breaks out of for await early', () => {
    it('should abort the run cleanly: no tool runs, result rejects with APIUserAbortError, nothing unhandled', async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        const tool = createRecordingTool('t');
        env.emu.setFaults([{ dripMs: 100, path: '/chat/completions' }]);
        env.emu.script([
          {
            chunks: [
              createChunk({ delta: { role: 'assistant', content: '' } }),
              createChunk({ delta: { role: '', content: 'thinking' } }),
              createChunk({
                delta: {
                  role: '',
                  tool_calls: [
                    { index: 0, id: 'c1', type: 'function', function: { name: 't', arguments: '{}' } },
                  ],
                },
              }),
              createChunk({ delta: { role: '' }, finish_reason: 'tool_calls' }),
            ],
          },
        ]);
        const stream = createAgent([tool.tool]).stream('go');
        const started = performance.now();
        for await (const event of stream) {
          if (event.type === 'start-step') break;
        }
        expect(performance.now() - started).toBeLessThan(ABORT_BOUND_MS);
        await expect(stream.result).rejects.toBeInstanceOf(APIUserAbortError);
        // Waiting for nothing to happen: no event may follow the abort.
        await new Promise((resolve) => setTimeout(resolve, 400));
        expect(tool.calls).toHaveLength(0);
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });
  });

  describe('when a step throws', () => {
    it('should yield the error event, then throw the same error from the loop and from result', async () => {
      env.emu.script([
        {
          error: {
            status: 400,
            body: { error: { message: 'Unrecognized chat message.', type: 'request_params_invalid' } },
          },
        },
      ]);
      const stream = createAgent().stream('x');
      const events: AgentEvent[] = [];
      let caught: unknown;
      try {
        for await (const event of stream) events.push(event);
      } catch (error) {
        caught = error;
      }
      expect(events.map((event) => event.type)).toEqual(['start', 'start-step', 'error']);
      expect(events.at(-1)).toEqual({ type: 'error', error: caught });
      await expect(stream.result).rejects.toBe(caught);
      expect((caught as { state: RunState }).state.messages).toEqual([{ role: 'user', content: 'x' }]);
    });

    it('should not crash the process when nobody awaits result', async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        env.emu.script([{ error: { status: 500 } }]);
        const stream = createAgent().stream('x');
        const failed = new Promise((resolve) => stream.on('error', resolve));
        await failed;
        // Waiting for nothing to happen: no second error event may follow.
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });
  });
});
