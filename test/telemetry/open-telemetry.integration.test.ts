import { fileURLToPath } from 'node:url';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { APIUserAbortError } from '../../src/core/errors.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { openTelemetry } from '../../src/telemetry/index.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { hostedTools } from '../../src/tools/hosted-tools.js';
import { runNodeScript } from '../helpers/run-cli-process.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');

let emu: Emulator;
let client: SvcClient;
beforeAll(async () => {
  emu = await startEmulator({ apiKey: 'sk-very-secret-key-123', model: { reasoningModels: [] } });
  client = new SvcClient({ baseURL: emu.baseURL, apiKey: emu.apiKey, maxRetries: 2 });
});
beforeEach(() => {
  emu.reset();
  exporter.reset();
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

const tool = (
  name: string,
  execute: (ctx: { signal: AbortSignal }) => Promise<string> = async () => `${name} ok`,
) =>
  defineTool({
    name,
    description: `Gets the ${name}`,
    parameters: z.object({}),
    execute: (_args, ctx) => execute(ctx),
  });

/** A tool that pauses the run for approval, as the resume tests need. */
const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Deletes the file',
  parameters: z.object({}),
  needsApproval: true,
  execute: async () => 'deleted',
});

function spans() {
  const all = exporter.getFinishedSpans();
  const byId = new Map(all.map((span) => [span.spanContext().spanId, span]));
  const parentOf = (span: ReadableSpan) => byId.get(span.parentSpanContext?.spanId ?? '');
  return { all, parentOf, named: (prefix: string) => all.filter((span) => span.name.startsWith(prefix)) };
}

describe('openTelemetry', () => {
  describe('when a run calls three tools', () => {
    it('should record invoke_agent with chat and execute_tool children, semconv attributes, no contents', async () => {
      const agent = new Agent({
        client,
        model: 'svc-3.5-flash',
        instructions: 'Be brief.',
        tools: [tool('weather'), tool('time'), tool('news')],
        instrumentation: openTelemetry({ tracer, agentName: 'concierge' }),
      });
      const result = await agent.run('Tell me the weather, the time and the news');
      const { all, named, parentOf } = spans();
      const [root] = named('invoke_agent');
      expect(root?.name).toBe('invoke_agent concierge');
      expect(root?.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': 'svc',
        'gen_ai.agent.name': 'concierge',
        'gen_ai.request.model': 'svc-3.5-flash',
        'gen_ai.usage.input_tokens': result.usage.promptTokens,
        'gen_ai.usage.output_tokens': result.usage.completionTokens,
      });
      const chats = named('chat ');
      const tools = named('execute_tool ');
      expect(chats).toHaveLength(2);
      expect(tools.map((span) => span.attributes['gen_ai.tool.name']).sort()).toEqual([
        'news',
        'time',
        'weather',
      ]);
      expect(tools.map((span) => span.attributes['gen_ai.tool.call.id']).sort()).toEqual(
        result.steps[0]?.toolCalls.map((call) => call.toolCallId).sort(),
      );
      for (const span of [...chats, ...tools]) expect(parentOf(span)).toBe(root);
      expect(chats[0]?.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'svc-3.5-flash',
        'gen_ai.usage.input_tokens': result.steps[0]?.usage.promptTokens,
        'gen_ai.response.finish_reasons': ['stop'],
      });
      // The second request repeats the first one's prefix: the service served it from its cache.
      expect(chats[1]?.attributes['gen_ai.usage.cache_read.input_tokens']).toBeGreaterThan(0);
      // Tools run after the first answer ended and before the second request.
      for (const span of tools) {
        expect(hrtime(span.startTime)).toBeGreaterThanOrEqual(hrtime(chats[0]!.endTime));
        expect(hrtime(span.endTime)).toBeLessThanOrEqual(hrtime(chats[1]!.startTime));
      }
      const text = JSON.stringify(all.map((span) => [span.attributes, span.events]));
      expect(text).not.toContain('gen_ai.input.messages');
      expect(text).not.toContain('Be brief');
      expect(text).not.toContain(emu.apiKey);
    });

    it('should record contents when asked to, still never the key', async () => {
      const agent = new Agent({
        client,
        model: 'svc-3.5-flash',
        instructions: 'Be brief.',
        tools: [tool('weather')],
        instrumentation: openTelemetry({ tracer, recordContents: true }),
      });
      await agent.stream('What is the weather?').result;
      const { all, named } = spans();
      expect(named('chat ')[0]?.attributes['gen_ai.input.messages']).toContain('What is the weather?');
      expect(named('execute_tool weather')[0]?.attributes['gen_ai.tool.call.result']).toBe('weather ok');
      expect(named('invoke_agent')[0]?.attributes['gen_ai.system_instructions']).toBe('Be brief.');
      expect(JSON.stringify(all.map((span) => [span.attributes, span.events]))).not.toContain(emu.apiKey);
    });
  });

  describe('when the service searches a knowledge base or the web for the agent', () => {
    it('should record a retrieval span as a child of the chat span', async () => {
      const store = await client.vectorStores.create({ name: 'handbook' });
      const agent = new Agent({
        client,
        model: 'svc-3.5-flash',
        tools: [
          hostedTools.retrieval({ name: 'handbook', description: 'The handbook', vectorStoreId: store.id }),
        ],
        instrumentation: openTelemetry({ tracer }),
      });
      // Repeated because the two spans start microseconds apart: only some runs straddle a
      // millisecond, which is when separately computed end times put the child after its parent.
      for (let run = 0; run < 400; run++) {
        exporter.reset();
        await agent.stream('What does the handbook say about holidays?').result;
        const { named, parentOf } = spans();
        const [chat] = named('chat ');
        const [retrieval] = named('retrieval ');
        expect(retrieval?.name).toBe(`retrieval ${store.id}`);
        expect(retrieval?.attributes).toMatchObject({
          'gen_ai.operation.name': 'retrieval',
          'gen_ai.data_source.id': store.id,
        });
        expect(parentOf(retrieval!)).toBe(chat);
        expect(nanoseconds(retrieval!.endTime)).toBeLessThanOrEqual(nanoseconds(chat!.endTime));
      }
    });

    it('should record the hosted web search as a child of the chat span', async () => {
      const agent = new Agent({
        client,
        model: 'svc-3.5-flash',
        tools: [hostedTools.webSearch()],
        instrumentation: openTelemetry({ tracer }),
      });
      await agent.run('Search the web for svc news');
      const { named, parentOf } = spans();
      const [search] = named('execute_tool svc_websearch');
      expect(search?.attributes).toMatchObject({
        'gen_ai.tool.type': 'extension',
        'gen_ai.operation.name': 'execute_tool',
      });
      expect(parentOf(search!)).toBe(named('chat ')[0]);
    });
  });

  describe('when a request is retried', () => {
    it('should record the retry as an event of its chat span', async () => {
      emu.setFaults([
        { path: '/v1/chat/completions', status: 503, headers: { 'retry-after-ms': '1' }, times: 1 },
      ]);
      const agent = new Agent({ client, model: 'svc-3.5-flash', instrumentation: openTelemetry({ tracer }) });
      await agent.stream('Hello there').result;
      const chats = spans().named('chat ');
      expect(chats).toHaveLength(1);
      const retry = chats[0]?.events.find((event) => event.name === 'retry');
      expect(retry?.attributes).toMatchObject({
        'svc_agents.retry.attempt': 2,
        'http.response.status_code': 503,
        'error.type': 'InternalServerError',
      });
      expect(chats[0]?.status.code).toBe(0);
    });
  });

  describe('when a request fails', () => {
    it('should record the error on the chat and invoke_agent spans', async () => {
      emu.script([{ error: { status: 400 } }]);
      const agent = new Agent({ client, model: 'svc-3.5-flash', instrumentation: openTelemetry({ tracer }) });
      await expect(agent.run('Hello')).rejects.toThrow();
      const { named } = spans();
      for (const span of [...named('chat '), ...named('invoke_agent')]) {
        expect(span.status.code).toBe(2);
        expect(span.attributes['error.type']).toBe('BadRequestError');
        expect(span.events.some((event) => event.name === 'exception')).toBe(true);
      }
    });
  });

  describe('when the run is aborted while a tool runs', () => {
    it('should end the tool and run spans with the abort recorded', async () => {
      const controller = new AbortController();
      const slow = tool('weather', ({ signal }) => {
        setTimeout(() => controller.abort(), 5);
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      });
      const agent = new Agent({
        client,
        model: 'svc-3.5-flash',
        tools: [slow],
        instrumentation: openTelemetry({ tracer }),
      });
      await expect(agent.run('What is the weather?', { signal: controller.signal })).rejects.toBeInstanceOf(
        APIUserAbortError,
      );
      const { named, parentOf } = spans();
      const [root] = named('invoke_agent');
      expect(root?.status.code).toBe(2);
      expect(root?.attributes['error.type']).toBe('APIUserAbortError');
      const [toolSpan] = named('execute_tool weather');
      expect(parentOf(toolSpan!)).toBe(root);
      expect(toolSpan?.status.code).toBe(2);
      expect(named('chat ')).toHaveLength(1);
    });
  });

  describe('when a paused run is resumed', () => {
    it('should trace the resumed run with the pending call under its own invoke_agent', async () => {
      const agent = new Agent({
        client,
        model: 'svc-3.5-flash',
        tools: [deleteFile],
        instrumentation: openTelemetry({ tracer }),
      });
      const paused = await agent.run('Please delete the file');
      expect(paused.status).toBe('interrupted');
      const first = spans().named('invoke_agent')[0];
      expect(first?.attributes['svc_agents.run.status']).toBe('interrupted');
      exporter.reset();
      paused.state.approve(paused.interruptions[0]!.toolCallId);
      const resumed = await agent.run(paused.state);
      expect(resumed.status).toBe('completed');
      const { named, parentOf } = spans();
      const [root] = named('invoke_agent');
      expect(root?.attributes['svc_agents.run.resumed']).toBe(true);
      const [toolSpan] = named('execute_tool delete_file');
      expect(parentOf(toolSpan!)).toBe(root);
      expect(toolSpan?.attributes['gen_ai.tool.call.id']).toBe(paused.interruptions[0]?.toolCallId);
      expect(named('chat ')).toHaveLength(1);
      expect(hrtime(toolSpan!.endTime)).toBeLessThanOrEqual(hrtime(named('chat ')[0]!.startTime));
    });
  });
});

describe('openTelemetry across agents and resumes', () => {
  const call = (id: string, name: string) => ({ id, function: { name, arguments: '{}' } });

  describe('when the agent hands off to another agent', () => {
    it('should record a chat span for every model request, the taking-over agent’s included', async () => {
      const instrumentation = openTelemetry({ tracer });
      const billing = new Agent({
        client,
        model: 'svc-3.5-flash',
        name: 'billing',
        tools: [tool('invoice')],
      });
      const triage = new Agent({
        client,
        model: 'svc-3.5-flash',
        name: 'triage',
        handoffs: [billing],
        instrumentation,
      });
      emu.script([
        { message: { content: '', tool_calls: [call('c1', 'transfer_to_billing')] } },
        { message: { content: '', tool_calls: [call('c2', 'invoice')] } },
        { message: { content: 'Here is your invoice.' } },
      ]);
      const result = await triage.run('I need my invoice');
      expect(result.lastAgent).toBe('billing');
      const requests = emu.requests().filter((request) => request.path.endsWith('/chat/completions'));
      expect(requests).toHaveLength(3);
      const { named, parentOf } = spans();
      const chats = named('chat ');
      expect(chats).toHaveLength(3);
      const [root] = named('invoke_agent');
      for (const chat of chats) expect(parentOf(chat)).toBe(root);
      expect(root?.name).toBe('invoke_agent triage');
      expect(named('handoff billing')).toHaveLength(1);
      expect(named('execute_tool invoice')[0]?.status.code).not.toBe(2);
    });
  });

  describe('when a durable run is approved and resumed', () => {
    it('should leave the paused call unflagged and not reopen the call answered from the ledger', async () => {
      const agent = new Agent({
        client,
        model: 'svc-3.5-flash',
        name: 'janitor',
        store: memoryStore(),
        tools: [tool('time'), deleteFile],
        instrumentation: openTelemetry({ tracer }),
      });
      emu.script([
        { message: { content: '', tool_calls: [call('t1', 'time'), call('d1', 'delete_file')] } },
        { message: { content: 'Deleted.' } },
      ]);
      const paused = await agent.run('What time is it? Then delete the file', { runId: 'otel-approve' });
      expect(paused.status).toBe('interrupted');
      const before = spans();
      expect(before.named('execute_tool time')[0]?.status.code).not.toBe(2);
      const waiting = before.named('execute_tool delete_file')[0];
      expect(waiting?.status.code).not.toBe(2);
      expect(waiting?.events.map((event) => event.name)).toEqual(['approval_requested', 'run_paused']);
      exporter.reset();

      const resumed = await agent.approve('otel-approve', 'd1');
      expect(resumed.status).toBe('completed');
      const { all, named } = spans();
      expect(named('invoke_agent')[0]?.attributes['svc_agents.run.resumed']).toBe(true);
      expect(named('execute_tool time')).toHaveLength(0);
      expect(named('execute_tool delete_file')).toHaveLength(1);
      expect(all.filter((span) => span.status.code === 2)).toEqual([]);
    });
  });

  describe('when openTelemetry() is given no agentName', () => {
    it('should name the invoke_agent span after the agent', async () => {
      const agent = new Agent({
        client,
        model: 'svc-3.5-flash',
        name: 'concierge',
        instrumentation: openTelemetry({ tracer }),
      });
      await agent.run('Hello');
      const [root] = spans().named('invoke_agent');
      expect(root?.name).toBe('invoke_agent concierge');
      expect(root?.attributes['gen_ai.agent.name']).toBe('concierge');
    });
  });
});

// Span clocks mix performance.now() and Date.now(): compare to the millisecond.
function hrtime([seconds, nanos]: [number, number]): number {
  return Math.round(seconds * 1e3 + nanos / 1e6);
}

function nanoseconds([seconds, nanos]: [number, number]): bigint {
  return BigInt(seconds) * 1_000_000_000n + BigInt(nanos);
}

describe('openTelemetry without @opentelemetry/api installed', () => {
  it('should run agents normally and record nothing', async () => {
    const script = fileURLToPath(new URL('./fixtures/run-without-otel-api.ts', import.meta.url));
    const { code, stdout, stderr } = await runNodeScript(script, [], { timeoutMs: 60_000 });
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ missing: true, status: 'completed', text: true });
  }, 60_000);
});
