import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseSse } from '../../src/browser-client/parse-sse.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { eventually } from '../helpers/eventually.js';
import { type QueueNamespace, queueBackends } from '../helpers/queue-backends.js';
import type { QueueChatProcessConfig } from './fixtures/queue-chat-process.js';

const fixture = join(import.meta.dirname, 'fixtures/queue-chat-process.ts');

interface Frame {
  id: number;
  event: { type: string; text?: string; [key: string]: unknown };
}

/** Reads SSE frames until the stream ends, or until `until` says to stop reading (the rest is left). */
async function readFrames(response: Response, until?: (frames: Frame[]) => boolean): Promise<Frame[]> {
  expect(response.status).toBe(200);
  const frames: Frame[] = [];
  for await (const item of parseSse(response.body!)) {
    if (item.kind !== 'message') continue;
    frames.push({ id: Number(item.message.id), event: JSON.parse(item.message.data) as Frame['event'] });
    if (until?.(frames)) break;
  }
  return frames;
}

const textOf = (frames: Frame[]) =>
  frames
    .filter((frame) => frame.event.type === 'text-delta')
    .map((frame) => frame.event.text)
    .join('');

const toolTurn = (id: string, name: string, args: Record<string, unknown> = {}) => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: args } }] },
});

for (const backend of queueBackends) {
  // One set of processes serves the file's tests (each test its own session): starting three processes is
  // most of the time here, tens of seconds on a loaded 2-core machine. The test that kills A runs last.
  describe.skipIf(!backend.available)(
    `a chat on two web servers and a worker, on ${backend.name}`,
    { timeout: 120_000 },
    () => {
      let emu: Emulator;
      let ns: QueueNamespace;
      let dir: string;
      let toolLog: string;
      const children: ChildProcess[] = [];

      const spawn = (role: QueueChatProcessConfig['role']) => {
        const config: QueueChatProcessConfig = {
          role,
          backend: backend.name,
          connection: ns.connection as QueueChatProcessConfig['connection'],
          store: ns.storeOptions,
          queueName: ns.queueName,
          baseURL: emu.baseURL,
          toolLog,
        };
        const child = fork(fixture, {
          execArgv: ['--import', 'tsx'],
          env: { ...process.env, QUEUE_CHAT_CONFIG: JSON.stringify(config), QUEUE_CHAT_API_KEY: emu.apiKey },
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        });
        children.push(child);
        return new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
          child.once('message', (message) =>
            resolve({ child, url: (message as { url?: string }).url ?? '' }),
          );
          child.once('exit', (code) => reject(new Error(`${role} exited with ${code} before it was ready`)));
        });
      };
      const toolLines = async () => (await readFile(toolLog, 'utf8')).split('\n').filter(Boolean);
      const chat = (url: string, sessionId: string, message: string) =>
        fetch(`${url}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sessionId, message }),
        });

      let a: { child: ChildProcess; url: string };
      let b: { child: ChildProcess; url: string };

      beforeAll(async () => {
        emu = await startEmulator({ port: 0 });
        ns = backend.create();
        dir = await mkdtemp(join(tmpdir(), 'svc-queue-chat-'));
        toolLog = join(dir, 'tools.log');
        await writeFile(toolLog, '');
        [a, b] = await Promise.all([spawn('server'), spawn('server'), spawn('worker')]);
      }, 120_000);
      beforeEach(() => emu.reset());
      afterAll(async () => {
        await Promise.all(
          children.splice(0).map(
            (child) =>
              new Promise<void>((resolve) => {
                if (child.exitCode !== null || child.signalCode !== null) return resolve();
                child.once('exit', () => resolve());
                child.kill('SIGKILL');
              }),
          ),
        );
        await ns.cleanup();
        await emu.close();
        await rm(dir, { recursive: true, force: true });
      });

      it('should stop on B a run started on A: the run ends stopped and no tool starts after', async () => {
        emu.script([
          toolTurn('s1', 'slow_step'),
          toolTurn('s2', 'slow_step'),
          toolTurn('s3', 'slow_step'),
          { message: { content: 'All done.' } },
        ]);
        const response = await chat(a.url, 's2', 'Run the long job');
        const runId = response.headers.get('x-run-id')!;
        const streamed = readFrames(response);
        await eventually(async () => (await toolLines()).includes('start s1'), 20_000);

        const stop = await fetch(`${b.url}/api/runs/${runId}/stop`, { method: 'POST' });
        const frames = await streamed;
        // Waiting for nothing to happen: no tool may start after the stop on the worker process.
        await new Promise((resolve) => setTimeout(resolve, 2_500));

        expect(stop.status).toBe(200);
        expect(await stop.json()).toEqual({ runId, status: 'stopped' });
        expect(frames.at(-1)?.event.type).toBe('abort');
        // s1 may have ended before the stop reached it; no step started after.
        expect((await toolLines()).filter((line) => /^(start|end) s[23]$/.test(line))).toEqual([]);
        expect(await toolLines()).toContain('start s1');
        const session = (await (await fetch(`${b.url}/api/sessions/s2`)).json()) as { activeRunId: unknown };
        expect(session.activeRunId).toBeNull();
      });

      it('should complete on B a run paused on A, its tool run once, a second approval refused', async () => {
        emu.script([
          toolTurn('r1', 'refund', { order: '42' }),
          { message: { content: 'Refunded order 42.' } },
        ]);
        const paused = await readFrames(await chat(a.url, 's3', 'Refund order 42'));
        expect(paused.at(-1)?.event.type).toBe('finish');
        const session = (await (await fetch(`${b.url}/api/sessions/s3`)).json()) as {
          pausedRunId: string;
          pendingApprovals: Array<{ toolCallId: string }>;
        };
        expect(session.pendingApprovals.map((call) => call.toolCallId)).toEqual(['r1']);

        const approve = () =>
          fetch(`${b.url}/api/runs/${session.pausedRunId}/approvals`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ decisions: [{ toolCallId: 'r1', approved: true }] }),
          });
        const continued = await readFrames(await approve());
        const again = await approve();

        expect(textOf(continued)).toBe('Refunded order 42.');
        expect(continued.at(-1)?.event.type).toBe('finish');
        expect(again.status).toBe(409);
        expect((await toolLines()).filter((line) => line.startsWith('refund'))).toEqual(['refund r1 42']);
      });

      it('should give the rest of an answer on B after A was killed mid-answer, each event id once, the text whole', async () => {
        const answer = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ');
        emu.script([{ message: { content: answer }, fault: { dripMs: 60 } }]);
        const response = await chat(a.url, 's1', 'Tell me a long story');
        const runId = response.headers.get('x-run-id')!;
        const first = await readFrames(response, (frames) => textOf(frames).length > 20);

        a.child.kill('SIGKILL');
        const lastId = first.at(-1)!.id;
        const rest = await readFrames(
          await fetch(`${b.url}/api/runs/${runId}/events`, { headers: { 'last-event-id': String(lastId) } }),
        );
        const all = [...first, ...rest];

        expect(rest.length).toBeGreaterThan(0);
        expect(new Set(all.map((frame) => frame.id)).size).toBe(all.length);
        expect(all.map((frame) => frame.id)).toEqual(all.map((_, index) => index));
        expect(textOf(all)).toBe(answer);
        expect(all.at(-1)?.event.type).toBe('finish');

        // The conversation goes on on B, with its history.
        emu.script([{ message: { content: 'The end.' } }]);
        const next = await readFrames(await chat(b.url, 's1', 'And then?'));
        expect(textOf(next)).toBe('The end.');
        const sent = emu.requests().at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
        expect(sent.messages.filter((message) => message.role !== 'system')).toEqual([
          { role: 'user', content: 'Tell me a long story' },
          expect.objectContaining({ role: 'assistant', content: answer }),
          { role: 'user', content: 'And then?' },
        ]);
      });
    },
  );
}
