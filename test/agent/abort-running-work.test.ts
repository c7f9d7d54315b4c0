import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentOptions } from '../../src/agent/agent-options.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { defineGuardrail } from '../../src/agent/guardrails/guardrail.js';
import { APIUserAbortError } from '../../src/core/errors.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { callDelta, createChunk } from '../helpers/create-chunk.js';
import { answer, toolTurn } from '../helpers/tool-turn.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

/**
 * A tool that runs until its signal fires (or answers at once with `finish: true`): `started` resolves when
 * `execute` begins, `signal` is the one it got.
 */
function createBlockingTool(name: string, options: { idempotent?: boolean; finish?: boolean } = {}) {
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const seen: { signal?: AbortSignal; startedBeforeToolCallEvent?: boolean } = {};
  const events: AgentEvent[] = [];
  const tool = defineTool({
    name,
    description: `Test tool ${name}`,
    parameters: z.object({ q: z.string() }),
    idempotent: options.idempotent ?? false,
    execute: async (_args, ctx) => {
      seen.signal = ctx.signal;
      seen.startedBeforeToolCallEvent = !events.some((event) => event.type === 'tool-call');
      markStarted();
      if (options.finish) return `${name} done`;
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      return `${name} stopped`;
    },
  });
  return { tool, started, seen, onEvent: (event: AgentEvent) => events.push(event) };
}

function createAgent(overrides: Partial<AgentOptions>) {
  return new Agent({ client: env.client, model: 'svc-3.5-flash', ...overrides });
}

/** A streamed turn calling `name` with `{"q":"a"}` in fragments, then more text so the stream goes on. */
function earlyCallChunks(name: string) {
  return [
    createChunk({ delta: { role: 'assistant', content: '' } }),
    createChunk({
      delta: callDelta({ index: 0, id: 'c1', type: 'function', function: { name, arguments: '' } }),
    }),
    createChunk({ delta: callDelta({ index: 0, function: { arguments: '{"q":' } }) }),
    createChunk({ delta: callDelta({ index: 0, function: { arguments: '"a"}' } }) }),
    ...Array.from({ length: 10 }, () => createChunk({ delta: { role: '', content: '' } })),
    createChunk({ delta: { role: '' }, finish_reason: 'tool_calls' }),
  ];
}

/** Aborts `signal`'s controller once `started` resolves; answers the run's rejection. */
async function abortWhenStarted(run: Promise<unknown>, started: Promise<void>, controller: AbortController) {
  const settled = run.then(
    () => undefined,
    (error: unknown) => error,
  );
  await started;
  controller.abort(new Error('caller gave up'));
  return settled;
}

describe('aborting a run', () => {
  describe('when a tool started early while the model still streams', () => {
    it('should stop it and leave no abort listener on the run signal', async () => {
      const search = createBlockingTool('search', { idempotent: true });
      env.emu.setFaults([{ dripMs: 100, path: '/chat/completions', times: 1 }]);
      env.emu.script([{ chunks: earlyCallChunks('search') }, answer('Done.')]);
      const controller = new AbortController();
      const run = createAgent({ tools: [search.tool] }).run('Go', {
        signal: controller.signal,
        stream: true,
        onEvent: search.onEvent,
      });

      const error = await abortWhenStarted(run, search.started, controller);

      expect(search.seen.startedBeforeToolCallEvent).toBe(true);
      expect(error).toBeInstanceOf(APIUserAbortError);
      expect(search.seen.signal?.aborted).toBe(true);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });
  });

  describe('when a tool runs in a run whose input guardrail runs alongside the first request', () => {
    it('should stop it and leave no abort listener on the run signal', async () => {
      const slow = createBlockingTool('slow');
      const allow = defineGuardrail({ name: 'allow', execute: () => ({ tripwire: false }) });
      env.emu.script([toolTurn(['c1', 'slow', '{"q":"a"}']), answer('Done.')]);
      const controller = new AbortController();
      const run = createAgent({ tools: [slow.tool], inputGuardrails: [allow] }).run('Go', {
        signal: controller.signal,
      });

      const error = await abortWhenStarted(run, slow.started, controller);

      expect(error).toBeInstanceOf(APIUserAbortError);
      expect(slow.seen.signal?.aborted).toBe(true);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });
  });

  describe('when a sub-agent used as a tool is running its own tool', () => {
    it('should stop the sub-agent and its tool and leave no abort listener on the run signal', async () => {
      const inner = createBlockingTool('slow');
      const helper = createAgent({ name: 'helper', tools: [inner.tool] });
      const parent = createAgent({
        tools: [helper.asTool({ name: 'ask_helper', description: 'Asks the helper.' })],
      });
      env.emu.script([
        toolTurn(['p1', 'ask_helper', '{"input":"go"}']),
        toolTurn(['s1', 'slow', '{"q":"a"}']),
        answer('Done.'),
      ]);
      const controller = new AbortController();
      const stream = parent.stream('Go', { signal: controller.signal });
      const events: AgentEvent[] = [];
      stream.on('event', (event) => events.push(event));

      const error = await abortWhenStarted(stream.result, inner.started, controller);

      expect(error).toBeInstanceOf(APIUserAbortError);
      expect(inner.seen.signal?.aborted).toBe(true);
      expect(events.filter((event) => event.type === 'abort')).toHaveLength(1);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });
  });

  describe('when the run ends without an abort', () => {
    it('should leave no abort listener on the run signal after early tools, guardrails and a sub-agent', async () => {
      const signal = new AbortController().signal;
      const search = createBlockingTool('search', { idempotent: true, finish: true });
      env.emu.setFaults([{ dripMs: 20, path: '/chat/completions', times: 1 }]);
      env.emu.script([{ chunks: earlyCallChunks('search') }, answer('Found.')]);
      const eager = await createAgent({ tools: [search.tool] }).run('Go', {
        signal,
        stream: true,
        onEvent: search.onEvent,
      });
      expect(eager.text).toBe('Found.');
      expect(search.seen.startedBeforeToolCallEvent).toBe(true);
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);

      const quick = createBlockingTool('quick', { finish: true });
      const allow = defineGuardrail({ name: 'allow', execute: () => ({ tripwire: false }) });
      const helper = createAgent({ name: 'helper', tools: [quick.tool], inputGuardrails: [allow] });
      const parent = createAgent({
        tools: [helper.asTool({ name: 'ask_helper', description: 'Asks the helper.' })],
        inputGuardrails: [allow],
      });
      env.emu.script([
        toolTurn(['p1', 'ask_helper', '{"input":"go"}']),
        toolTurn(['s1', 'quick', '{"q":"a"}']),
        answer('Helped.'),
        answer('Done.'),
      ]);
      const composed = await parent.run('Go', { signal });
      expect(composed.text).toBe('Done.');
      expect(quick.seen.signal).toBeDefined();
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    });
  });
});
