import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient } from '../../../../src/api/svc-client.js';
import { createServeAgent } from '../../../../src/cli/demo/serve/serve-agent.js';
import { type ChatServer, startChatServer } from '../../../../src/cli/demo/serve/start-chat-server.js';
import { demoTools } from '../../../../src/cli/demo/tools/demo-tools.js';
import { startEmulator } from '../../../../src/emulator/index.js';
import type { Emulator } from '../../../../src/emulator/types.js';

describe('createServeAgent', () => {
  let emu: Emulator;
  let client: SvcClient;
  let server: ChatServer;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0, parseDelayMs: 0 });
    client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
    const store = await client.vectorStores.create({ name: 'office_docs', type: 'text' });
    const file = await client.files.upload({
      file: Buffer.from('The Lisbon office is open on Saturday from 10:00 to 14:00.'),
      filename: 'office-hours.md',
      purpose: 'retrieval-text',
    });
    await client.files.waitUntilReady(file.id);
    await client.vectorStores.files.create(store.id, { files: [{ file_id: file.id }] });
    server = await startChatServer({
      client,
      port: 0,
      subtitle: 'demo agent',
      agent: createServeAgent({
        model: 'svc-3.5-flash-2603',
        tools: demoTools(),
        instructions: 'You are a helpful assistant.',
        knowledgeBases: ['office_docs'],
      }),
    });
  });
  afterAll(async () => {
    await server?.close();
    await client?.close();
    await emu?.close();
  });

  describe('when given knowledge bases', () => {
    it('should answer the page from them, with the cited file as a source event', async () => {
      const response = await fetch(`${server.url}/api/chat`, {
        method: 'POST',
        body: JSON.stringify({ message: 'When is the Lisbon office open on Saturday?' }),
      });
      const events = (await response.text())
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as { type: string; title?: string; text?: string });
      expect(events.filter((event) => event.type === 'source').map((event) => event.title)).toEqual([
        'office-hours.md',
      ]);
      const text = events
        .filter((event) => event.type === 'text-delta')
        .map((event) => event.text)
        .join('');
      expect(text).toContain('10:00 to 14:00');
      expect(text).toContain('office-hours.md');
    });
  });
});
