import { inspect } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { runCli } from '../../src/cli/run-cli.js';
import { createMcpToolServer } from '../../src/mcp/create-mcp-tool-server.js';
import { openTelemetry } from '../../src/telemetry/index.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { createChatHandler } from '../../src/web/create-chat-handler.js';
import { createHttpTestServer, type HttpTestServer } from '../helpers/create-http-test-server.js';
import { leaksKey } from '../helpers/leaks-key.js';
import { memoryIo } from '../helpers/memory-io.js';

const apiKey = 'sk-sinks/secret+7b7b7b7b7b7b';

/** A service that echoes the key back in every form at once: a header, padding past 200 characters, escapes, encodings. */
function echoEverywhere(): string {
  const forms = [
    apiKey.replace('/', '\\/'),
    encodeURIComponent(apiKey),
    Buffer.from(`x${apiKey}`).toString('base64'),
    Buffer.from(apiKey).toString('base64url'),
  ];
  return JSON.stringify({
    error: { message: `${'x'.repeat(190)}${apiKey} ${forms.join(' ')}`, type: 'bad' },
  });
}

let server: HttpTestServer;
let client: SvcClient;
beforeAll(async () => {
  server = await createHttpTestServer((_req, res) => {
    res
      .writeHead(400, { 'content-type': 'application/json', 'x-trace-id': `trace-${apiKey}` })
      .end(echoEverywhere());
  });
  client = new SvcClient({ apiKey, baseURL: server.url, maxRetries: 0 });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const expectNoKey = (shown: string) => expect(leaksKey(shown, apiKey), shown).toBe(false);

describe('key-leak sweep over every sink of an error a server echoed the key into', () => {
  it('should keep it out of the error, its JSON and its inspection', async () => {
    const error = await client.tokens
      .count({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400 });
    for (const shown of [
      String(error),
      JSON.stringify(error),
      inspect(error, { depth: 10, showHidden: true }),
    ])
      expectNoKey(shown);
    expectNoKey(String((error as { requestId?: string }).requestId));
  });

  it.each([[[]], [['--json']]])('should keep it out of CLI output (flags %j)', async (flags) => {
    const io = memoryIo({ SVC_API_KEY: apiKey, SVC_BASE_URL: server.url });
    const code = await runCli(['tokens', 'hello', ...flags], io);
    expect(code).not.toBe(0);
    expect(io.err()).toContain('trace');
    expectNoKey(io.out() + io.err());
  });

  it('should keep it out of the web chat SSE error event', async () => {
    const chat = createChatHandler({
      agent: new Agent({ client, model: 'svc-3.5-flash' }),
      sse: { heartbeatMs: 0 },
    });
    const response = await chat.fetch(
      new Request('http://127.0.0.1/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hi' }),
      }),
    );
    const text = await response.text();
    expect(text).toContain('error');
    expectNoKey(text);
    chat.close();
  });

  it('should keep it out of an MCP tool result', async () => {
    const countTokens = defineTool({
      name: 'count_tokens',
      description: 'Counts tokens',
      parameters: z.object({}),
      execute: () => client.tokens.count({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpToolServer({ tools: [countTokens] }).connect(serverSide);
    const mcp = new Client({ name: 'test', version: '1.0.0' });
    await mcp.connect(clientSide);
    const result = await mcp.callTool({ name: 'count_tokens', arguments: {} });
    expect(result.isError).toBe(true);
    expectNoKey(JSON.stringify(result));
    await mcp.close();
  });

  it('should keep it out of span attributes, status and events', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const agent = new Agent({
      client,
      model: 'svc-3.5-flash',
      instrumentation: openTelemetry({ tracer: provider.getTracer('test') }),
    });
    await expect(agent.run('Hello')).rejects.toThrow();
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(0);
    for (const span of spans)
      expectNoKey(JSON.stringify({ a: span.attributes, s: span.status, e: span.events }));
  });
});
