import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AgentEventJson, createChatClient } from '../../src/browser-client/index.js';
import { collect } from '../helpers/collect.js';
import { POSTGRES_URL, REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';
import type { ChatServerFixtureConfig } from './fixtures/chat-server.js';

const env = useAgentTestEnv();
const fixture = join(import.meta.dirname, 'fixtures/chat-server.ts');
const [redisUp, postgresUp] = await Promise.all([serviceAvailable('redis'), serviceAvailable('postgres')]);

interface Backend {
  name: 'redis' | 'postgres';
  available: boolean;
  url: string;
  namespace: () => string;
  cleanup: (namespace: string) => Promise<void>;
}

const backends: Backend[] = [
  {
    name: 'redis',
    available: redisUp,
    url: REDIS_URL,
    namespace: () => `${uniqueNamespace('web')}:`,
    async cleanup(prefix) {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  },
  {
    name: 'postgres',
    available: postgresUp,
    url: POSTGRES_URL,
    namespace: () => uniqueNamespace('web'),
    async cleanup(schema) {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  },
];

function call(id: string, name: string, args: object = {}, content = '') {
  return { message: { content, tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }] } };
}

const textOf = (events: AgentEventJson[]) =>
  events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');

/** The SSE events of a response as `{ id, data }`, up to `until` (then the body is cancelled). */
async function readSse(response: Response, until?: (event: AgentEventJson) => boolean) {
  const events: Array<{ id: number; event: AgentEventJson }> = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (id === undefined || data === undefined) continue;
      const event = JSON.parse(data) as AgentEventJson;
      events.push({ id: Number(id), event });
      if (until?.(event)) {
        await reader.cancel();
        return events;
      }
    }
  }
}

for (const backend of backends) {
  describe.skipIf(!backend.available)(
    `createChatHandler on one ${backend.name} store, in two processes`,
    () => {
      const namespace = backend.namespace();
      const folder = mkdtempSync(join(tmpdir(), 'svc-web-shared-'));
      const log = join(folder, 'tools.log');
      const children: ChildProcess[] = [];
      let a = '';
      let b = '';

      function spawnServer(): Promise<string> {
        const config: ChatServerFixtureConfig = {
          backend: backend.name,
          url: backend.url,
          namespace,
          baseURL: env.emu.baseURL,
          log,
        };
        const child = fork(fixture, {
          execArgv: ['--import', 'tsx'],
          env: {
            ...process.env,
            CHAT_SERVER_CONFIG: JSON.stringify(config),
            CHAT_SERVER_API_KEY: env.emu.apiKey,
          },
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        });
        children.push(child);
        return new Promise((resolve, reject) => {
          child.once('message', (message) =>
            resolve(`http://127.0.0.1:${(message as { port: number }).port}/api`),
          );
          child.once('exit', (code) =>
            reject(new Error(`chat server exited with ${code} before it listened`)),
          );
        });
      }

      const toolStarts = (tool: string) =>
        readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line !== '' && (JSON.parse(line) as { tool: string }).tool === tool).length;

      beforeAll(async () => {
        // A failed first start of the PostgreSQL store creates its schema: start them one after the other.
        a = await spawnServer();
        b = await spawnServer();
      }, 60_000);

      afterEach(() => {
        rmSync(log, { force: true });
      });

      afterAll(async () => {
        await Promise.all(
          children.map(
            (child) =>
              new Promise<void>((resolve) => {
                if (child.exitCode !== null) return resolve();
                child.once('exit', () => resolve());
                child.kill('SIGTERM');
              }),
          ),
        );
        await backend.cleanup(namespace);
        rmSync(folder, { recursive: true, force: true });
      });

      it('should continue on B a conversation started on A, with its history', async () => {
        env.emu.script([{ message: { content: 'First answer' } }, { message: { content: 'Second answer' } }]);
        const first = createChatClient({ baseUrl: a }).send('Hello');
        expect(textOf(await collect(first))).toBe('First answer');
        const sessionId = await first.sessionId;
        const second = createChatClient({ baseUrl: b }).send('And then?', { sessionId });
        expect(textOf(await collect(second))).toBe('Second answer');
        const sent = chatRequests(env.emu).at(-1)?.messages as Array<{ role: string; content: string }>;
        expect(sent.map((m) => `${m.role}:${m.content}`)).toEqual([
          'user:Hello',
          'assistant:First answer',
          'user:And then?',
        ]);
      });

      it('should complete on B a run paused on A, its tool run once', async () => {
        env.emu.script([call('c1', 'delete_file', { id: 'f1' }), { message: { content: 'Deleted f1.' } }]);
        const first = createChatClient({ baseUrl: a }).send('Delete f1');
        await collect(first);
        const session = await createChatClient({ baseUrl: b }).session(await first.sessionId);
        expect(session).toMatchObject({ pendingApprovals: [{ toolCallId: 'c1', toolName: 'delete_file' }] });
        const approved = await collect(
          createChatClient({ baseUrl: b }).decide(await first.runId, [{ toolCallId: 'c1', approved: true }]),
        );
        expect(textOf(approved)).toBe('Deleted f1.');
        expect(toolStarts('delete_file')).toBe(1);
      });

      it('should apply one of two concurrent approvals sent to A and B', async () => {
        env.emu.script([call('c1', 'delete_file', { id: 'f2' }), { message: { content: 'Deleted f2.' } }]);
        const first = createChatClient({ baseUrl: a }).send('Delete f2');
        await collect(first);
        const runId = await first.runId;
        const decide = (base: string) =>
          fetch(`${base}/runs/${runId}/approvals`, {
            method: 'POST',
            body: JSON.stringify({ decisions: [{ toolCallId: 'c1', approved: true }] }),
          });
        const answers = await Promise.all([decide(a), decide(b)]);
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
        const winner = answers.find((answer) => answer.status === 200)!;
        expect(textOf((await readSse(winner)).map((e) => e.event))).toBe('Deleted f2.');
        await answers.find((answer) => answer.status === 409)?.text();
        expect(toolStarts('delete_file')).toBe(1);
      });

      it('should stop on B a run started on A, and start no tool after', async () => {
        env.emu.script([
          call('c1', 'slow_lookup', {}, 'Looking it up.'),
          call('c2', 'count'),
          { message: { content: 'Counted.' } },
        ]);
        const started = await fetch(`${a}/chat`, {
          method: 'POST',
          body: JSON.stringify({ message: 'look, count' }),
        });
        const runId = started.headers.get('x-run-id')!;
        const sessionId = started.headers.get('x-session-id')!;
        await readSse(started, (event) => event.type === 'tool-call');
        const stop = await fetch(`${b}/runs/${runId}/stop`, { method: 'POST' });
        expect(await stop.json()).toEqual({ runId, status: 'stopped' });
        const replay = (await readSse(await fetch(`${b}/runs/${runId}/events`))).map((e) => e.event);
        expect(replay.at(-1)?.type).toBe('abort');
        // Waiting for nothing to happen: the stopped run must write no further event.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(toolStarts('slow_lookup')).toBe(1);
        expect(toolStarts('count')).toBe(0);
        const session = await createChatClient({ baseUrl: a }).session(sessionId);
        expect(session.messages).toEqual([
          { role: 'user', content: 'look, count' },
          { role: 'assistant', content: 'Looking it up.' },
        ]);
        expect(session.activeRunId).toBeNull();
        env.emu.reset();
      });

      it('should replay on B after Last-Event-ID without a gap or a duplicate id', async () => {
        env.emu.script([
          call('c1', 'slow_lookup', { ms: 600 }),
          { message: { content: 'Found three notes about comets.' } },
        ]);
        const started = await fetch(`${a}/chat`, {
          method: 'POST',
          body: JSON.stringify({ message: 'look up comets' }),
        });
        const runId = started.headers.get('x-run-id')!;
        const before = await readSse(started, (event) => event.type === 'tool-call');
        const last = before.at(-1)!.id;
        const after = await readSse(
          await fetch(`${b}/runs/${runId}/events`, { headers: { 'last-event-id': String(last) } }),
        );
        const ids = [...before, ...after].map((e) => e.id);
        expect(ids).toEqual(ids.map((_, index) => index));
        expect(after.at(-1)?.event.type).toBe('finish');
        expect(textOf([...before, ...after].map((e) => e.event))).toBe('Found three notes about comets.');
      });
    },
  );
}
