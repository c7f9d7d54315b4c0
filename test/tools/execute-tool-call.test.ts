import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolSet } from '../../src/tools/create-tool-set.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolExecutionError, ToolTimeoutError } from '../../src/tools/errors.js';
import { executeToolCall } from '../../src/tools/execute-tool-call.js';
import type { AnyTool, ToolContext } from '../../src/tools/tool.js';
import { createToolCall } from '../helpers/create-tool-call.js';

function weatherTool(execute: (args: { city: string }, ctx: ToolContext) => unknown, timeoutMs?: number) {
  return defineTool({
    name: 'get_weather',
    description: 'Weather of a city.',
    parameters: z.object({ city: z.string() }),
    execute,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

function run(tools: AnyTool[], name: string, args: unknown, extra: { signal?: AbortSignal } = {}) {
  return executeToolCall({
    toolSet: createToolSet(tools),
    call: createToolCall(name, args),
    context: { user: 'u1' },
    ...extra,
  });
}

/** Resolves when the signal fires, with its reason; the way a well-behaved tool waits. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
  );
}

describe('executeToolCall', () => {
  describe('when the tool succeeds', () => {
    it.each([
      ['a string as is', 'sunny, 21°C', 'sunny, 21°C'],
      ['an object as JSON', { temperature: 21, sky: 'clear' }, '{"temperature":21,"sky":"clear"}'],
      ['undefined as an empty string', undefined, ''],
      ['a number as JSON', 21, '21'],
    ])('should report %s', async (_label, output, content) => {
      const outcome = await run([weatherTool(() => output)], 'get_weather', { city: 'Oslo' });
      expect(outcome).toMatchObject({
        status: 'ok',
        content,
        output,
        input: { city: 'Oslo' },
        executed: true,
      });
      expect(outcome.toolName).toBe('get_weather');
    });

    it('should pass the call id, context, client and a live signal to the tool', async () => {
      let seen: ToolContext | undefined;
      const tool = weatherTool((_args, ctx) => {
        seen = ctx;
      });
      const call = createToolCall('get_weather', { city: 'Oslo' }, 'call_abc');
      await executeToolCall({ toolSet: createToolSet([tool]), call, context: { user: 'u1' } });
      expect(seen?.toolCallId).toBe('call_abc');
      expect(seen?.context).toEqual({ user: 'u1' });
      expect(seen?.client).toBeUndefined();
      expect(seen?.signal.aborted).toBe(false);
    });
  });

  describe('when the model calls an unknown tool', () => {
    it('should list the available tools for the model', async () => {
      const other = defineTool({ name: 'get_time', description: 'Time.', execute: () => 'noon' });
      const outcome = await run([weatherTool(() => 'x'), other], 'x', {});
      expect(outcome.status).toBe('no-such-tool');
      expect(outcome.content).toBe('No tool named "x"; available: get_weather, get_time');
      expect(outcome.executed).toBe(false);
    });
  });

  describe('when the arguments are invalid', () => {
    it('should not call the tool and tell the model what is wrong', async () => {
      let calls = 0;
      const outcome = await run([weatherTool(() => calls++)], 'get_weather', { city: 3 });
      expect(calls).toBe(0);
      expect(outcome.status).toBe('invalid-arguments');
      expect(outcome.content).toBe('Invalid arguments for get_weather: city: expected string, got number');
      expect(outcome.input).toBe('{"city":3}');
    });
  });

  describe('when the tool throws', () => {
    it('should report the message only, without the stack', async () => {
      const outcome = await run(
        [
          weatherTool(() => {
            throw new Error('station offline');
          }),
        ],
        'get_weather',
        { city: 'Oslo' },
      );
      expect(outcome.status).toBe('error');
      expect(outcome.content).toBe('Error in get_weather: station offline');
      expect(outcome.error).toBeInstanceOf(ToolExecutionError);
    });

    it('should mask credentials found in the message', async () => {
      const outcome = await run(
        [
          weatherTool(async () => {
            throw new Error('request failed with Authorization: Bearer sk-live-1234567890abcdef');
          }),
        ],
        'get_weather',
        { city: 'Oslo' },
      );
      expect(outcome.content).not.toContain('1234567890abcdef');
      expect(outcome.content).toContain('[redacted]');
    });
  });

  describe('when the tool runs past its timeout', () => {
    it('should abort its signal with a ToolTimeoutError and tell the model', async () => {
      let reason: unknown;
      const tool = weatherTool(async (_args, ctx) => {
        try {
          return await untilAborted(ctx.signal);
        } catch (error) {
          reason = error;
          throw error;
        }
      }, 30);
      const outcome = await run([tool], 'get_weather', { city: 'Oslo' });
      expect(outcome.status).toBe('timeout');
      expect(outcome.content).toContain('get_weather timed out after 30 ms');
      expect(reason).toBeInstanceOf(ToolTimeoutError);
      expect(outcome.error).toBeInstanceOf(ToolTimeoutError);
    });

    it('should stop waiting even if the tool ignores its signal', async () => {
      const tool = weatherTool(() => new Promise(() => {}), 30);
      const outcome = await run([tool], 'get_weather', { city: 'Oslo' });
      expect(outcome.status).toBe('timeout');
    });
  });

  describe('when the run is aborted', () => {
    it('should fire the tool signal and report the call as cancelled', async () => {
      const controller = new AbortController();
      let toolSignal: AbortSignal | undefined;
      const tool = weatherTool((_args, ctx) => {
        toolSignal = ctx.signal;
        setTimeout(() => controller.abort(new Error('user stopped')), 5);
        return untilAborted(ctx.signal);
      });
      const outcome = await run([tool], 'get_weather', { city: 'Oslo' }, { signal: controller.signal });
      expect(toolSignal?.aborted).toBe(true);
      expect(outcome.status).toBe('aborted');
      expect(outcome.content).toContain('may have taken effect');
      expect(outcome.executed).toBe(true);
      expect(outcome.error?.message).toBe('user stopped');
    });

    it('should not start the tool when the signal is already aborted', async () => {
      let calls = 0;
      const outcome = await run(
        [weatherTool(() => calls++)],
        'get_weather',
        { city: 'Oslo' },
        {
          signal: AbortSignal.abort(),
        },
      );
      expect(calls).toBe(0);
      expect(outcome).toMatchObject({ status: 'aborted', executed: false });
    });
  });
});
