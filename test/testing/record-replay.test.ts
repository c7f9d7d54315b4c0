import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { ReplayMissError, recordReplay } from '../../src/testing/index.js';
import { defineTool } from '../../src/tools/define-tool.js';

// A key with enough characters that its encoded forms (base64, URL) are searchable in the files.
const KEY = 'sk-live-Zq8x!R2/v9+Kp=3Tt7Wm';
const SECRET = 'db-password-8c1f2e';

const weatherTool = (calls: string[], note: string) =>
  defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: z.object({ city: z.string().describe('City name') }),
    execute: ({ city }) => {
      calls.push(city);
      return { city, condition: 'light rain', temperature_c: 14, note };
    },
  });

/**
 * A streamed, multi-turn run with a tool: every event and the final text. A secret in what the tool
 * returns is masked in the recording, so its replay answers `***` where the live run said it.
 */
async function runAgent(client: SvcClient, prompt: string, note = 'dry by evening') {
  const calls: string[] = [];
  const agent = new Agent({ client, model: 'svc-3.5-flash', tools: [weatherTool(calls, note)] });
  const stream = agent.stream(prompt);
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const result = await stream.result;
  return { events, text: result.text, status: result.status, calls };
}

describe('recordReplay', () => {
  let dir: string;
  let emu: Emulator | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-cassettes-'));
    emu = await startEmulator({ port: 0, apiKey: KEY });
  });
  afterEach(async () => {
    await emu?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const record = async <T>(name: string, work: (client: SvcClient) => Promise<T>) => {
    const recording = await recordReplay({ dir, name, mode: 'record', secrets: [SECRET] });
    const client = new SvcClient({
      apiKey: KEY,
      baseURL: emu!.baseURL,
      maxRetries: 0,
      ...recording.clientOptions,
    });
    const out = await work(client);
    await client.close();
    await recording.close();
    return { out, path: recording.path };
  };
  const replay = async <T>(name: string, work: (client: SvcClient) => Promise<T>) => {
    const recording = await recordReplay({ dir, name, mode: 'replay', secrets: [SECRET] });
    // No key and an address nothing listens on: only the recording can answer.
    const client = new SvcClient({
      baseURL: 'http://127.0.0.1:9',
      maxRetries: 0,
      ...recording.clientOptions,
    });
    try {
      return await work(client);
    } finally {
      await client.close();
      await recording.close();
    }
  };

  describe('when a streamed tool-calling run is recorded and the emulator is gone', () => {
    it('should replay it offline with the same events and result, the tool run again locally', async () => {
      const live = await record('weather', (client) => runAgent(client, "What's the weather in Paris?"));
      expect(live.out.calls).toEqual(['Paris']);
      expect(live.out.events.some((event) => event.type === 'text-delta')).toBe(true);
      await emu!.close();
      emu = undefined;

      const replayed = await replay('weather', (client) => runAgent(client, "What's the weather in Paris?"));
      expect(replayed.events).toEqual(live.out.events);
      expect(replayed.text).toBe(live.out.text);
      expect(replayed.calls).toEqual(['Paris']);

      const file = JSON.parse(await readFile(live.path, 'utf8')) as {
        interactions: Array<{ request: { path: string }; response: { events?: string[] } }>;
      };
      // Two model requests, streamed: the file shows each event as the service sent it.
      expect(file.interactions.map((it) => it.request.path)).toEqual([
        '/v1/chat/completions',
        '/v1/chat/completions',
      ]);
      expect(file.interactions[0]?.response.events?.at(-1)).toBe('data: [DONE]');
    });
  });

  describe('when the prompt changed since the recording', () => {
    it('should fail with the closest recorded request and a readable difference', async () => {
      await record('prompt', (client) => runAgent(client, "What's the weather in Paris?"));
      const error = await replay('prompt', (client) => runAgent(client, "What's the weather in Rome?")).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(ReplayMissError.isInstance(error)).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain('POST /v1/chat/completions');
      expect(message).toMatch(/^- .*What's the weather in Paris\?/m);
      expect(message).toMatch(/^\+ .*What's the weather in Rome\?/m);
    });
  });

  describe('when the recording is written', () => {
    it('should never hold the key or a configured secret, in any encoding', async () => {
      const { path } = await record('secrets', (client) =>
        runAgent(client, "What's the weather in Paris?", `connect with ${SECRET}`),
      );
      const text = await readFile(path, 'utf8');
      const forms = [
        KEY,
        SECRET,
        encodeURIComponent(KEY),
        Buffer.from(KEY).toString('base64'),
        Buffer.from(KEY).toString('base64url'),
        JSON.stringify(KEY).slice(1, -1),
      ];
      for (const form of forms) expect(text, form).not.toContain(form);
      // The tool result that carried the secret went to the model, masked.
      expect(text).toContain('connect with ***');
    });
  });

  describe('when files, a knowledge base, images and audio are used', () => {
    it('should record and replay uploads, knowledge-base calls, generated images and spoken answers', async () => {
      const work = async (client: SvcClient) => {
        const file = await client.files.upload({
          file: new Blob(['Otters hold hands while they sleep.'], { type: 'text/plain' }),
          filename: 'otters.txt',
          purpose: 'retrieval-text',
        } as never);
        const store = await client.vectorStores.create({ name: 'otter_facts' });
        await client.vectorStores.files.create(store.id, { files: [{ file_id: file.id }] });
        const listed = await client.vectorStores.files.list(store.id);
        const spoken = await client.chat.completions.create({
          model: 'svc-audio-2',
          modalities: ['text', 'audio'],
          audio: { voice: 'wenrounansheng', format: 'wav' },
          messages: [{ role: 'user', content: 'Hello!' }],
        });
        const image = await client.images.generate({
          model: 'svc-1x-medium',
          prompt: 'A lighthouse at dusk',
          response_format: 'b64_json',
        });
        return {
          file: file.id,
          image: image.data[0]?.image?.slice(0, 64),
          store: store.id,
          listed: listed.data.map((entry) => entry.id),
          transcript: spoken.choices[0]?.message.audio?.transcript,
          audioBytes: spoken.choices[0]?.message.audio?.data?.length,
        };
      };
      const live = await record('media', work);
      await emu!.close();
      emu = undefined;
      const replayed = await replay('media', work);
      expect(replayed).toEqual(live.out);
      expect(live.out.audioBytes).toBeGreaterThan(1000);
      expect(live.out.image).toMatch(/^[A-Za-z0-9+/]{64}$/);
      const text = await readFile(live.path, 'utf8');
      // The upload is keyed on its content's hash, not on the random multipart boundary.
      expect(text).toMatch(/"sha256": "[0-9a-f]{64}"/);
    });
  });

  describe('when replay is asked for a cassette that does not exist', () => {
    it('should refuse before any request, naming the file and how to record it', async () => {
      await expect(recordReplay({ dir, name: 'missing', mode: 'replay' })).rejects.toThrow(
        /no cassette at .*missing\.json; record it with SVC_RECORD_MODE=record/,
      );
    });
  });
});
