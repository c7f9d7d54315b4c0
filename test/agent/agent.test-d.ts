import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentStream } from '../../src/agent/agent-stream.js';
import type { AgentEvent, TextDeltaEvent, ToolCallEvent } from '../../src/agent/events.js';
import type { RunResult } from '../../src/agent/run-result.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { defineTool } from '../../src/tools/define-tool.js';

const client = new SvcClient({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:1' });

describe('Agent types', () => {
  it('should type result.output from the zod output schema', async () => {
    const agent = new Agent({
      client,
      model: 'svc-3.5-flash',
      output: z.object({ city: z.string(), celsius: z.number().optional() }),
    });
    const result = await agent.run('x');
    expectTypeOf(result).toEqualTypeOf<RunResult<{ city: string; celsius?: number | undefined }>>();
    expectTypeOf<RunResult<{ city: string }>['output']>().toEqualTypeOf<{ city: string } | undefined>();
    if (result.status === 'completed') {
      expectTypeOf(result.output).toEqualTypeOf<{ city: string; celsius?: number | undefined }>();
    } else {
      expectTypeOf(result.output).toEqualTypeOf<undefined>();
    }
  });

  it('should leave output undefined without a schema', async () => {
    const agent = new Agent({ client, model: 'svc-3.5-flash' });
    const result = await agent.run('x');
    expectTypeOf(result.output).toEqualTypeOf<undefined>();
  });

  it('should infer tool arguments from the zod parameters inside the agent options', () => {
    new Agent({
      client,
      model: 'svc-3.5-flash',
      tools: [
        defineTool({
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: z.object({ city: z.string(), days: z.number().int().optional() }),
          execute: (args) => {
            expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number | undefined }>();
            return args.city;
          },
          needsApproval: (args) => {
            expectTypeOf(args.city).toBeString();
            return false;
          },
        }),
      ],
    });
  });

  it('should type the run context handed to tools', () => {
    const tool = defineTool({
      name: 'whoami',
      description: 'Current user',
      execute: (_args, ctx: { context: { userId: string } }) => ctx.context.userId,
    });
    const agent = new Agent<{ userId: string }>({ client, model: 'svc-3.5-flash', tools: [tool] });
    void agent.run('x', { context: { userId: 'u1' } });
    // @ts-expect-error the context must match the agent's context type
    void agent.run('x', { context: { userId: 1 } });
  });

  it('should type the stream as events, emitter and result', () => {
    const agent = new Agent({ client, model: 'svc-3.5-flash', output: z.object({ ok: z.boolean() }) });
    const stream = agent.stream('x');
    expectTypeOf(stream).toEqualTypeOf<AgentStream<{ ok: boolean }>>();
    expectTypeOf(stream).toMatchTypeOf<AsyncIterable<AgentEvent>>();
    expectTypeOf(stream.result).toEqualTypeOf<Promise<RunResult<{ ok: boolean }>>>();
    stream.on('text-delta', (event) => {
      expectTypeOf(event).toEqualTypeOf<TextDeltaEvent>();
    });
    stream.on('tool-call', (event) => {
      expectTypeOf(event).toEqualTypeOf<ToolCallEvent>();
    });
    // @ts-expect-error not an event of the agent
    stream.on('no-such-event', () => {});
  });
});
