/**
 * The README's sections on long conversations, cost and OpenTelemetry, run for real. Each `// #region` is
 * copied verbatim into README.md, and test/examples/readme.test.ts fails when the two drift apart.
 */
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { Agent, type ChatMessage, defineTool, SvcClient } from '../../src/index.js';
import { openTelemetry } from '../../src/telemetry/index.js';

describe('README long conversations, cost and tracing', () => {
  let service: Emulator;
  let client: SvcClient;
  const exporter = new InMemorySpanExporter();

  beforeAll(async () => {
    service = await startEmulator({ port: 0 });
    client = new SvcClient({ apiKey: service.apiKey, baseURL: service.baseURL });
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
  });
  afterAll(async () => {
    trace.disable();
    await client.close();
    await service.close();
  });

  // Stands in for a document store: large results, so the conversation outgrows the window.
  const fetchDocument = defineTool({
    name: 'fetch_document',
    description: 'Fetch a document by number.',
    parameters: z.object({ id: z.number() }),
    execute: async ({ id }) => `Document ${id}: ${'lorem ipsum dolor sit amet '.repeat(300)}`,
  });

  it('should keep a long conversation under the window', async () => {
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    // #region context-window
    const agent = new Agent({
      client,
      model: 'svc-1-8k', // an 8K-token window
      instructions: 'You are a librarian.',
      tools: [fetchDocument],
      contextWindow: { strategy: 'truncate' }, // or 'summarize', or a function of yours
    });

    let history: ChatMessage[] = [];
    for (const id of [1, 2, 3, 4, 5, 6]) {
      const stream = agent.stream([...history, { role: 'user', content: `Fetch document ${id}` }]);
      for await (const event of stream) {
        if (event.type === 'context-overflow') {
          log(
            `dropped ${event.dropped.length} messages: ${event.tokensBefore} -> ${event.tokensAfter} tokens`,
          );
        }
      }
      history = (await stream.result).messages;
    }
    // #endregion
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).toMatch(/^dropped \d+ messages: \d+ -> \d+ tokens$/);
  });

  it('should price a run', async () => {
    // #region cost
    const priced = new Agent({
      client,
      model: 'svc-3.5-flash',
      // Your prices per million tokens (these figures are made up); credits on the plan channel.
      prices: { 'svc-3.5-flash': { input: 0.3, cachedInput: 0.03, output: 1.2 } },
    });
    const first = await priced.run('Hello!');
    const second = await priced.run([...first.messages, { role: 'user', content: 'And again?' }]);
    console.log(second.usage.cachedTokens, 'of', second.usage.promptTokens, 'prompt tokens were cached');
    console.log(
      'cost:',
      second.usage.cost,
      '- per step:',
      second.steps.map((step) => step.usage.cost),
    );
    // #endregion
    expect(second.usage.cachedTokens).toBeGreaterThan(0);
    expect(second.usage.cost).toBeGreaterThan(0);
  });

  it('should trace a run with OpenTelemetry', async () => {
    // #region telemetry
    const traced = new Agent({
      client,
      model: 'svc-3.5-flash',
      tools: [fetchDocument],
      // Spans go to the tracer provider you registered; contents only with recordContents: true.
      instrumentation: openTelemetry({ agentName: 'librarian' }),
    });
    await traced.run('Fetch document 7');
    // -> invoke_agent librarian
    //      chat svc-3.5-flash, execute_tool fetch_document, chat svc-3.5-flash
    // #endregion
    const names = exporter.getFinishedSpans().map((span) => span.name);
    expect(names).toEqual([
      'chat svc-3.5-flash',
      'execute_tool fetch_document',
      'chat svc-3.5-flash',
      'invoke_agent librarian',
    ]);
  });
});
