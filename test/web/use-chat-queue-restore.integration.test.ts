import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { type RunWorker, startWorker } from '../../src/queue/start-worker.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { chatRunObserver } from '../../src/web/chat-run-observer.js';
import { type ChatHandler, createChatHandler } from '../../src/web/create-chat-handler.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import { MAJORS, openChat } from './fixtures/headless-chat.js';

const broken = defineTool({
  name: 'read_meter',
  description: 'Reads the meter',
  parameters: z.object({ id: z.string() }),
  execute: () => {
    throw new Error('The meter is offline.');
  },
});
const search = defineTool({
  name: 'search_docs',
  description: 'Searches the handbook',
  parameters: z.object({ query: z.string() }),
  execute: () => ({ passages: [{ fileId: 'file-7', title: 'handbook.md' }] }),
  sources: (output) =>
    output.passages.map((p) => ({
      sourceType: 'document' as const,
      id: p.fileId,
      title: p.title,
      fileId: p.fileId,
    })),
});
const call = (id: string, name: string, args: object) => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }] },
});

const redis = queueBackends.find((backend) => backend.name === 'redis')!;
const sdk = MAJORS[1][1];

describe.skipIf(!redis.available)('/api/ui restores on a queue worker (point 6, scaled out)', () => {
  let emu: Emulator;
  let client: SvcClient;
  let ns: QueueNamespace;
  let queue: RunQueue;
  let worker: RunWorker;
  let handler: ChatHandler;
  let server: Server;
  let api: string;

  beforeEach(async () => {
    emu = await startEmulator({ port: 0 });
    client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
    ns = redis.create();
    queue = new RunQueue({ connection: ns.connection, store: ns.store, name: ns.queueName });
    worker = await startWorker({
      connection: ns.connection,
      store: ns.store,
      name: ns.queueName,
      agents: { chat: new Agent({ client, model: 'svc-3.5-flash', tools: [broken, search] }) },
      observeRun: chatRunObserver({ store: ns.store }),
      handleSignals: false,
    });
    handler = createChatHandler({ store: ns.store, queue, recheckMs: 100, sse: { heartbeatMs: 0 } });
    server = createServer((req, res) => void handler.node(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ui`;
  });
  afterEach(async () => {
    await handler.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await worker.close(true);
    await queue.close();
    await ns.cleanup();
    await client.close();
    await emu.close();
  });

  it('should restore a failed call as output-error and keep its sources, as the live stream showed them', async () => {
    emu.script([
      call('m1', 'read_meter', { id: 'A' }),
      call('s1', 'search_docs', { query: 'holidays' }),
      { message: { content: 'The meter is offline; 25 days.' } },
    ]);
    const chat = openChat(sdk, api, 'chat-queue-restore');
    await chat.sendMessage({ text: 'Meter and holidays?' });
    expect(chat.state.error).toBeUndefined();
    const live = chat.state.messages.at(-1)!;
    const restored = (await (
      await fetch(`${api}/chat-queue-restore/messages`)
    ).json()) as typeof chat.state.messages;
    const answer = restored.at(-1)!;
    expect(answer.id).toBe(live.id);
    const meter = (m: typeof live) => m.parts.find((p) => p.type === 'tool-read_meter');
    expect(meter(answer)).toMatchObject({ state: 'output-error', errorText: meter(live)!.errorText });
    const sources = (m: typeof live) => m.parts.filter((p) => p.type === 'source-document');
    expect(sources(live)).toHaveLength(1);
    expect(sources(answer)).toEqual(sources(live));
  });
});
