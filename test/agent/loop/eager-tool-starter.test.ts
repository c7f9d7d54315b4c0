import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../../src/agent/agent.js';
import type { AgentOptions } from '../../../src/agent/agent-options.js';
import type { AgentEvent } from '../../../src/agent/events.js';
import type { RunState } from '../../../src/agent/run-state.js';
import type { ChatCompletionChunk } from '../../../src/api/types/chat.js';
import { InternalServerError } from '../../../src/core/errors.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { callDelta, createChunk } from '../../helpers/create-chunk.js';
import { useAgentTestEnv } from '../../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

// Every stream event waits this long: argument fragments arrive well apart, as from a slow model.
const DRIP_MS = 25;

/** One shared timeline: agent events and tool starts in the order they happened, with times. */
function createTimeline() {
  const entries: Array<{ what: string; at: number }> = [];
  const add = (what: string) => entries.push({ what, at: performance.now() });
  const indexOf = (what: string) => entries.findIndex((entry) => entry.what === what);
  const lastIndexOf = (what: string) => entries.findLastIndex((entry) => entry.what === what);
  const timeOf = (what: string) => entries[indexOf(what)]!.at;
  return { entries, add, indexOf, lastIndexOf, timeOf };
}

type Timeline = ReturnType<typeof createTimeline>;

function createTool(
  name: string,
  timeline: Timeline,
  overrides: { idempotent?: boolean; needsApproval?: boolean } = {},
) {
  const runs: Array<{ args: unknown; signal: AbortSignal }> = [];
  const tool = defineTool({
    name,
    description: `Test tool ${name}`,
    parameters: z.object({ q: z.string() }),
    idempotent: overrides.idempotent ?? true,
    needsApproval: overrides.needsApproval ?? false,
    execute: async (args, ctx) => {
      timeline.add(`start ${name}`);
      runs.push({ args, signal: ctx.signal });
      return `${name}: ${args.q}`;
    },
  });
  return { tool, runs };
}

/** Chunks of a turn calling each tool in turn, its arguments in three fragments, then `finish`. */
function toolTurnChunks(calls: Array<[id: string, name: string, q: string]>): ChatCompletionChunk[] {
  const chunks = [createChunk({ delta: { role: 'assistant', content: '' } })];
  calls.forEach(([id, name, q], index) => {
    chunks.push(
      createChunk({ delta: callDelta({ index, id, type: 'function', function: { name, arguments: '' } }) }),
    );
    chunks.push(createChunk({ delta: callDelta({ index, function: { arguments: '{"q":' } }) }));
    chunks.push(createChunk({ delta: callDelta({ index, function: { arguments: `"${q}"` } }) }));
    chunks.push(createChunk({ delta: callDelta({ index, function: { arguments: '}' } }) }));
  });
  chunks.push(createChunk({ delta: { role: '' }, finish_reason: 'tool_calls' }));
  return chunks;
}

/** Runs a streamed agent and records argument fragments and `tool-call` events on the timeline. */
async function streamRun(agent: Agent, timeline: Timeline, input: string | RunState = 'Go') {
  const events: AgentEvent[] = [];
  const stream = agent.stream(input);
  // Listeners run as each event is emitted (the iterator may see it a little later).
  stream.on('event', (event) => {
    if (event.type === 'tool-input-delta') timeline.add(`delta ${event.toolCallId}`);
    else if (event.type === 'tool-call') timeline.add(`tool-call ${event.toolCallId}`);
  });
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result };
}

function createAgent(tools: NonNullable<AgentOptions['tools']>) {
  return new Agent({ client: env.client, model: 'svc-3.5-flash', tools });
}

describe('eager tool start', () => {
  describe('when an idempotent tool is called while the model still streams', () => {
    it('should start each idempotent call after its last argument fragment and before the stream ends', async () => {
      const timeline = createTimeline();
      const search = createTool('search', timeline);
      const write = createTool('write', timeline, { idempotent: false });
      env.emu.setFaults([{ dripMs: DRIP_MS, path: '/chat/completions', times: 1 }]);
      env.emu.script([
        {
          chunks: toolTurnChunks([
            ['c1', 'search', 'a'],
            ['c2', 'search', 'b'],
            ['c3', 'write', 'c'],
          ]),
        },
        { message: { content: 'Done.' } },
      ]);

      const { result } = await streamRun(createAgent([search.tool, write.tool]), timeline);

      expect(result.text).toBe('Done.');
      const streamEnd = timeline.indexOf('tool-call c1');
      const starts = timeline.entries.filter((entry) => entry.what === 'start search');
      expect(starts).toHaveLength(2);
      // c1 is complete when its closing brace arrives: it starts before c2's first fragment.
      const firstSearch = timeline.indexOf('start search');
      expect(firstSearch).toBeGreaterThan(timeline.lastIndexOf('delta c1'));
      expect(firstSearch).toBeLessThan(timeline.indexOf('delta c2'));
      const secondSearch = timeline.lastIndexOf('start search');
      expect(secondSearch).toBeGreaterThan(timeline.lastIndexOf('delta c2'));
      expect(secondSearch).toBeLessThan(timeline.indexOf('delta c3'));
      expect(secondSearch).toBeLessThan(streamEnd);
      // The non-idempotent tool keeps today's behaviour: it starts once the stream has ended.
      expect(timeline.indexOf('start write')).toBeGreaterThan(streamEnd);
      // Start delay relative to the call's last fragment (informative; ordering is what is asserted).
      const lastFragmentC1 = timeline.entries[timeline.lastIndexOf('delta c1')]!.at;
      expect(starts[0]!.at - lastFragmentC1).toBeGreaterThanOrEqual(0);
      expect(timeline.entries[streamEnd]!.at - starts[1]!.at).toBeGreaterThan(0);

      expect(search.runs.map((run) => run.args)).toEqual([{ q: 'a' }, { q: 'b' }]);
      expect(write.runs).toHaveLength(1);
      const toolMessages = result.messages.filter((message) => message.role === 'tool');
      expect(toolMessages).toEqual([
        { role: 'tool', tool_call_id: 'c1', content: 'search: a' },
        { role: 'tool', tool_call_id: 'c2', content: 'search: b' },
        { role: 'tool', tool_call_id: 'c3', content: 'write: c' },
      ]);
    });

    it('should emit the same events in the same order as a run that starts tools after the stream', async () => {
      const script = () =>
        env.emu.script([
          {
            chunks: toolTurnChunks([
              ['c1', 'search', 'a'],
              ['c2', 'search', 'b'],
            ]),
          },
          { message: { content: 'Done.' } },
        ]);
      const eagerTimeline = createTimeline();
      script();
      const eager = await streamRun(createAgent([createTool('search', eagerTimeline).tool]), eagerTimeline);
      const lateTimeline = createTimeline();
      script();
      const late = await streamRun(
        createAgent([createTool('search', lateTimeline, { idempotent: false }).tool]),
        lateTimeline,
      );

      expect(eagerTimeline.indexOf('start search')).toBeLessThan(eagerTimeline.indexOf('tool-call c1'));
      expect(lateTimeline.indexOf('start search')).toBeGreaterThan(lateTimeline.indexOf('tool-call c2'));
      // The second run repeats the first one's prompt, so the emulator's prompt cache serves part of it:
      // only `cachedTokens` may differ between the two event lists.
      expect(withoutCachedTokens(eager.events)).toEqual(withoutCachedTokens(late.events));
      expect(eager.result.messages).toEqual(late.result.messages);
    });
  });

  describe('when the arguments change after the tool started', () => {
    it('should discard the early result and run the call again with the final arguments', async () => {
      const timeline = createTimeline();
      const search = createTool('search', timeline);
      const chunks = toolTurnChunks([['c1', 'search', 'a']]);
      // A trailing fragment after the complete object: the final text differs from what started.
      chunks.splice(-1, 0, createChunk({ delta: callDelta({ index: 0, function: { arguments: ' ' } }) }));
      env.emu.script([{ chunks }, { message: { content: 'Done.' } }]);

      const { result } = await streamRun(createAgent([search.tool]), timeline);

      expect(search.runs).toHaveLength(2);
      expect(result.steps[0]!.toolCalls[0]!.arguments).toBe('{"q":"a"} ');
      expect(result.messages.filter((message) => message.role === 'tool')).toEqual([
        { role: 'tool', tool_call_id: 'c1', content: 'search: a' },
      ]);
    });
  });

  describe('when the turn fails after a tool started early', () => {
    it('should discard the early result and run the call again when the run is resumed', async () => {
      const timeline = createTimeline();
      const search = createTool('search', timeline);
      const chunks = toolTurnChunks([
        ['c1', 'search', 'a'],
        ['c2', 'search', 'b'],
      ]);
      // The service reports a failure inside the stream once c1 is complete.
      chunks.splice(6, 0, { error: { message: 'boom', type: 'server_error' } } as never);
      env.emu.script([{ chunks }]);
      const agent = createAgent([search.tool]);

      const error = (await streamRun(agent, timeline).catch((e: unknown) => e)) as InternalServerError & {
        state: RunState;
      };

      expect(error).toBeInstanceOf(InternalServerError);
      expect(search.runs).toHaveLength(1);
      expect(error.state.messages.map((message) => message.role)).toEqual(['user']);
      expect(error.state.ledger.entries()).toEqual([]);

      env.emu.script([
        { chunks: toolTurnChunks([['c1', 'search', 'a']]) },
        { message: { content: 'Done.' } },
      ]);
      const { result } = await streamRun(agent, timeline, error.state);
      expect(search.runs).toHaveLength(2);
      expect(result.messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
      ]);
    });
  });

  describe('when an idempotent tool needs approval', () => {
    it('should not start it before a human approves', async () => {
      const timeline = createTimeline();
      const search = createTool('search', timeline, { needsApproval: true });
      env.emu.script([{ chunks: toolTurnChunks([['c1', 'search', 'a']]) }]);

      const { result } = await streamRun(createAgent([search.tool]), timeline);

      expect(result.status).toBe('interrupted');
      expect(search.runs).toHaveLength(0);
    });
  });

  describe('when the arguments are complete JSON that the schema rejects', () => {
    it('should not start the tool and tell the model as usual', async () => {
      const timeline = createTimeline();
      const search = createTool('search', timeline);
      const chunks = toolTurnChunks([['c1', 'search', 'a']]);
      chunks.splice(
        2,
        3,
        createChunk({ delta: callDelta({ index: 0, function: { arguments: '{"query":"a"}' } }) }),
      );
      env.emu.script([{ chunks }, { message: { content: 'Sorry.' } }]);

      const { result } = await streamRun(createAgent([search.tool]), timeline);

      expect(search.runs).toHaveLength(0);
      expect(result.steps[0]!.toolResults[0]!.status).toBe('invalid-arguments');
    });
  });

  describe('when the run is the last turn allowed', () => {
    it('should not start tools whose calls will be answered "not run"', async () => {
      const timeline = createTimeline();
      const search = createTool('search', timeline);
      env.emu.script([{ chunks: toolTurnChunks([['c1', 'search', 'a']]) }]);
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        tools: [search.tool],
        maxTurns: 1,
      });

      await expect(agent.stream('Go').result).rejects.toThrow(/1 turn/);
      expect(search.runs).toHaveLength(0);
    });
  });

  describe('when nobody observes the events (run with stream: true)', () => {
    it('should still start idempotent tools before the stream ends', async () => {
      const timeline = createTimeline();
      const search = createTool('search', timeline);
      const observe = defineTool({
        name: 'observe',
        description: 'Marks when the stream ended',
        parameters: z.object({ q: z.string() }),
        execute: () => {
          timeline.add('stream ended');
          return 'ok';
        },
      });
      env.emu.setFaults([{ dripMs: DRIP_MS, path: '/chat/completions', times: 1 }]);
      // Without eager start, the first call (observe) would start first.
      const chunks = toolTurnChunks([
        ['c1', 'observe', 'x'],
        ['c2', 'search', 'a'],
      ]);
      env.emu.script([{ chunks }, { message: { content: 'Done.' } }]);
      const agent = createAgent([search.tool, observe]);

      const result = await agent.run('Go', { stream: true });

      expect(result.text).toBe('Done.');
      expect(timeline.indexOf('start search')).toBeLessThan(timeline.indexOf('stream ended'));
    });
  });
});

function withoutCachedTokens(events: unknown[]): unknown {
  return JSON.parse(JSON.stringify(events, (key, value) => (key === 'cachedTokens' ? undefined : value)));
}
