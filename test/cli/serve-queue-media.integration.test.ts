import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSse } from '../../src/browser-client/parse-sse.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { tinyPng } from '../helpers/media-bytes.js';
import { dropPostgresSchemas, dropRedisKeys } from '../helpers/queue-backends.js';
import { childEnv, cliMain, runCli, tsxImport } from '../helpers/run-cli-process.js';

const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

const backends = [
  {
    name: 'Redis',
    available: redisUp,
    flags: ['--redis', REDIS_URL],
    cleanup: (ns: string) => dropRedisKeys(`${ns}:*`, `svc-agents:${ns}*`),
  },
  {
    name: 'PostgreSQL',
    available: postgresUp,
    flags: ['--postgres', POSTGRES_URL],
    cleanup: (ns: string) => dropPostgresSchemas(ns, `${ns}_queue`),
  },
];

/** Starts `svc-agents <args> --json` and resolves with the JSON document it prints once ready. */
async function startCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; ready: Record<string, unknown> }> {
  const child = spawn(process.execPath, ['--import', tsxImport, cliMain, ...args, '--json'], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  for await (const chunk of child.stdout!) {
    out += chunk;
    try {
      return { child, ready: JSON.parse(out) as Record<string, unknown> };
    } catch {
      // not complete yet
    }
  }
  throw new Error(`svc-agents ${args[0]} exited before it was ready: ${out}${err}`);
}

interface ChatEvent {
  type: string;
  text?: string;
  data?: string;
  transcript?: string;
}

/** Posts a chat turn to one server and reads its events to the end. */
async function ask(url: string, body: Record<string, unknown>): Promise<ChatEvent[]> {
  const response = await fetch(`${url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  const events: ChatEvent[] = [];
  for await (const item of parseSse(response.body!)) {
    if (item.kind === 'message') events.push(JSON.parse(item.message.data) as ChatEvent);
  }
  return events;
}

// The worker speaks (`--voice`): an audio model's answer text is the transcript of what it says.
const textOf = (events: ChatEvent[]) =>
  events
    .flatMap((event) =>
      event.type === 'text-delta' ? [event.text] : event.type === 'audio-delta' ? [event.transcript] : [],
    )
    .join('');

// `serve --queue` twice and one `worker` on one Redis or PostgreSQL: what a single `serve` does with a session's
// uploaded files, images and voice, the scaled-out chat does too, whichever server takes each request.
for (const backend of backends) {
  describe.skipIf(!backend.available)(
    `svc-agents serve --queue (two servers) and worker on ${backend.name}: uploads, images, voice`,
    { timeout: 180_000 },
    () => {
      let emu: Emulator;
      let namespace: string;
      const children: ChildProcess[] = [];
      let serverA: string;
      let serverB: string;

      beforeAll(async () => {
        emu = await startEmulator({ port: 0 });
        namespace = uniqueNamespace('cliqm');
        const env = { SVC_BASE_URL: emu.baseURL, SVC_API_KEY: emu.apiKey };
        const flags = [...backend.flags, '--namespace', namespace];
        const started = await Promise.all([
          startCli(['serve', '--port', '0', '--queue', ...flags], env),
          startCli(['serve', '--port', '0', '--queue', ...flags], env),
          startCli(['worker', '--voice', 'qingchunshaonv', ...flags], env),
        ]);
        children.push(...started.map((process) => process.child));
        serverA = started[0].ready.url as string;
        serverB = started[1].ready.url as string;
      }, 180_000);
      afterAll(async () => {
        for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
        await backend.cleanup(namespace);
        await emu.close();
      });

      it('should answer through server B from a file uploaded through server A, citing the file', async () => {
        const upload = await fetch(`${serverA}/api/files?sessionId=media-1&name=launch-notes.txt`, {
          method: 'POST',
          body: 'The project codename is BLUEFINCH. The launch is planned for March 2027.\n',
        });
        expect(upload.status).toBe(200);
        const { knowledgeBaseId } = (await upload.json()) as { knowledgeBaseId: string };

        const events = await ask(serverB, { sessionId: 'media-1', message: 'What is the project codename?' });

        const text = textOf(events);
        expect(text).toContain('launch-notes.txt');
        expect(text).toContain('BLUEFINCH');
        // The worker's request searched the session's knowledge base, the one server A created.
        const sent = emu
          .requests()
          .filter((request) => request.path.endsWith('/chat/completions'))
          .map((request) => JSON.stringify(request.body));
        expect(sent.some((body) => body.includes(knowledgeBaseId))).toBe(true);
      });

      it('should send an image question to the vision model with the image, through the worker', async () => {
        const png = `data:image/png;base64,${tinyPng().toString('base64')}`;

        const events = await ask(serverB, {
          sessionId: 'media-2',
          message: 'What is in this picture?',
          images: [png],
        });

        expect(events.at(-1)?.type).toBe('finish');
        const request = emu
          .requests()
          .filter((entry) => entry.path.endsWith('/chat/completions'))
          .map((entry) => entry.body as { model: string; messages: Array<{ content: unknown }> })
          .find((body) => JSON.stringify(body.messages).includes(png));
        expect(request?.model).toBe('svc-1o-turbo-vision');
        expect(textOf(events)).not.toBe('');
      });

      it('should relay a spoken answer (audio pieces) from the worker to the page of server A', async () => {
        const events = await ask(serverA, { sessionId: 'media-3', message: 'Say good morning' });

        const pieces = events.flatMap((event) => (event.type === 'audio-delta' ? [event.data ?? ''] : []));
        const pcm = Buffer.concat(pieces.map((piece) => Buffer.from(piece, 'base64')));
        expect(pcm.byteLength).toBeGreaterThan(1000);
        expect(textOf(events)).not.toBe('');
        expect(events.at(-1)?.type).toBe('finish');
        // Spoken with the worker's --voice.
        const request = emu
          .requests()
          .filter((entry) => entry.path.endsWith('/chat/completions'))
          .map((entry) => entry.body as { messages: unknown; audio?: { voice: string } })
          .find((body) => JSON.stringify(body.messages).includes('Say good morning'));
        expect(request?.audio?.voice).toBe('qingchunshaonv');
      });
    },
  );
}

describe('svc-agents serve --queue --voice', () => {
  it('should be refused, naming the worker as where --voice goes (the workers speak the answers)', async () => {
    const result = await runCli(
      ['serve', '--port', '0', '--queue', '--voice', 'qingchunshaonv', '--redis', 'redis://127.0.0.1:1'],
      { timeoutMs: 60_000 },
    );

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('give --voice to `svc-agents worker`');
  });
});
