import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import { type AgentEventJson, createChatClient } from '../../src/browser-client/index.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import type { ChatRunner } from '../../src/web/chat-runner.js';
import type { ChatStateStore } from '../../src/web/chat-state.js';
import { type ChatHandler, createChatHandler } from '../../src/web/create-chat-handler.js';
import { inProcessChatRunner } from '../../src/web/in-process-chat-runner.js';
import { collect } from '../helpers/collect.js';
import { createFailingSubAgentsRun } from '../helpers/create-failing-sub-agents-run.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

let gate: { promise: Promise<void>; open: () => void } = createGate();
function createGate() {
  let open: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
let toolCancelled = false;

const tools = [
  defineTool({
    name: 'delete_file',
    description: 'Deletes a file',
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    execute: ({ id }) => ({ deleted: id }),
  }),
  defineTool({
    name: 'slow_lookup',
    description: 'Waits for the test',
    parameters: z.object({}),
    execute: async (_args, { signal }) => {
      signal.addEventListener('abort', () => {
        toolCancelled = true;
      });
      await gate.promise;
      return 'looked up';
    },
  }),
];

function call(id: string, name: string, args: object = {}) {
  return {
    message: { content: '', tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }] },
  };
}

let server: Server | undefined;
let handler: ChatHandler | undefined;

async function start(options: { agent?: Agent; store?: Store } = {}) {
  const { agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools }), ...rest } = options;
  handler = createChatHandler({ agent, sse: { heartbeatMs: 0, retryMs: 20 }, ...rest });
  const h = handler;
  server = createServer((req, res) => void h.node(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  gate.open();
  gate = createGate();
  toolCancelled = false;
  handler?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

const textOf = (events: AgentEventJson[]) =>
  events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');

describe('createChatHandler', () => {
  describe('when a message is posted, then another in the same session', () => {
    it('should stream the answers and keep the conversation', async () => {
      const base = await start();
      const chat = createChatClient({ baseUrl: `${base}/api`, retryMs: 10 });
      env.emu.script([{ message: { content: 'First answer' } }, { message: { content: 'Second answer' } }]);
      const first = chat.send('Hello');
      const events = await collect(first);
      expect(events[0]).toEqual({ type: 'start' });
      expect(textOf(events)).toBe('First answer');
      const sessionId = await first.sessionId;
      expect(await first.runId).toMatch(/^[\w-]+$/);

      expect(textOf(await collect(chat.send('And then?', { sessionId })))).toBe('Second answer');
      const sent = chatRequests(env.emu).at(-1)?.messages as Array<{ role: string; content: string }>;
      expect(sent.map((m) => `${m.role}:${m.content}`)).toEqual([
        'user:Hello',
        'assistant:First answer',
        'user:And then?',
      ]);
      const snapshot = await chat.session(sessionId);
      expect(snapshot.messages).toHaveLength(4);
      expect(snapshot.activeRunId).toBeNull();
    });
  });

  describe('when a tool needs approval', () => {
    it('should pause, then run the approved call and tell the model about a rejected one', async () => {
      const base = await start();
      const chat = createChatClient({ baseUrl: `${base}/api` });
      env.emu.script([
        call('c1', 'delete_file', { id: 'f1' }),
        { message: { content: 'Deleted f1.' } },
        call('c2', 'delete_file', { id: 'f2' }),
        { message: { content: 'Kept f2.' } },
      ]);
      const first = chat.send('Delete f1');
      const paused = await collect(first);
      expect(paused.find((event) => event.type === 'tool-approval-request')).toMatchObject({
        toolCallId: 'c1',
        toolName: 'delete_file',
        input: { id: 'f1' },
      });
      expect(paused.at(-1)?.type).toBe('finish');
      const approved = await collect(chat.decide(await first.runId, [{ toolCallId: 'c1', approved: true }]));
      expect(approved.find((event) => event.type === 'tool-result')).toMatchObject({
        toolCallId: 'c1',
        output: { deleted: 'f1' },
      });
      expect(textOf(approved)).toBe('Deleted f1.');

      const second = chat.send('Delete f2', { sessionId: await first.sessionId });
      await collect(second);
      const rejected = await collect(
        chat.decide(await second.runId, [{ toolCallId: 'c2', approved: false, reason: 'keep it' }]),
      );
      const error = rejected.find((event) => event.type === 'tool-error');
      expect(error?.type === 'tool-error' && error.error.message).toContain('keep it');
      expect(textOf(rejected)).toBe('Kept f2.');
    });

    it('should continue the same stored run of an agent with a store, to one completed record', async () => {
      const store = memoryStore();
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools, store });
      const base = await start({ agent, store });
      const chat = createChatClient({ baseUrl: `${base}/api` });
      env.emu.script([
        call('c1', 'delete_file', { id: 'f1' }),
        call('c2', 'delete_file', { id: 'f2' }),
        { message: { content: 'Deleted both.' } },
      ]);
      const first = chat.send('Delete f1, then f2');
      await collect(first);
      const runId = await first.runId;
      const records = async () => (await store.listRuns()).map((run) => [run.id, run.status]);
      expect(await records()).toEqual([[runId, 'interrupted']]);

      // Paused again in the continued run: still the same record.
      const second = chat.decide(runId, [{ toolCallId: 'c1', approved: true }]);
      await collect(second);
      expect(await records()).toEqual([[runId, 'interrupted']]);
      const last = await collect(chat.decide(await second.runId, [{ toolCallId: 'c2', approved: true }]));
      expect(textOf(last)).toBe('Deleted both.');
      expect(await records()).toEqual([[runId, 'completed']]);
      const record = await store.getRun(runId);
      expect(record?.text).toBe('Deleted both.');
    });

    it('should refuse a decision for a call the run is not waiting for, and keep the run paused', async () => {
      const base = await start();
      const chat = createChatClient({ baseUrl: `${base}/api` });
      env.emu.script([call('c1', 'delete_file', { id: 'f1' }), { message: { content: 'ok' } }]);
      const run = chat.send('Delete f1');
      await collect(run);
      const runId = await run.runId;
      await expect(
        collect(chat.decide(runId, [{ toolCallId: 'nope', approved: true }])),
      ).rejects.toMatchObject({
        status: 409,
      });
      const events = await collect(chat.decide(runId, [{ toolCallId: 'c1', approved: true }]));
      expect(textOf(events)).toBe('ok');
    });
  });

  describe('when sub-agents fail', () => {
    it('should send their nested errors as name and message, with the API key masked', async () => {
      const key = env.emu.apiKey;
      const base = await start({ agent: createFailingSubAgentsRun(env) });
      const response = await fetch(`${base}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'go' }),
      });
      const body = await response.text();
      expect(body).not.toContain(key);
      const nested = body
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as AgentEventJson)
        .flatMap((event) => (event.type === 'sub-agent' && event.event.type === 'error' ? [event] : []));
      expect(nested.map((event) => [event.agent, event.event])).toEqual([
        [
          'plain',
          { type: 'error', error: { name: 'Error', message: 'tool registry refused token=[redacted]' } },
        ],
        [
          'typed',
          { type: 'error', error: { name: 'SvcError', message: 'tool registry refused api_key=[redacted]' } },
        ],
      ]);
    });
  });

  describe('when the connection drops while the run goes on', () => {
    it('should reconnect with Last-Event-ID and deliver every event exactly once', async () => {
      const base = await start();
      env.emu.script([call('c1', 'slow_lookup'), { message: { content: 'Found it.' } }]);
      let cut = false;
      // The first response is cut after its first event arrives, as a flaky network would.
      const flakyFetch: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (cut || !response.body) return response;
        cut = true;
        const reader = response.body.getReader();
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const { value, done } = await reader.read();
            if (done) return controller.close();
            controller.enqueue(value);
            if (new TextDecoder().decode(value).includes('"tool-call"')) {
              await reader.cancel();
              controller.error(new TypeError('network error'));
            }
          },
        });
        return new Response(body, { headers: response.headers, status: response.status });
      };
      const chat = createChatClient({ baseUrl: `${base}/api`, fetch: flakyFetch, retryMs: 10 });
      const run = chat.send('look it up');
      const events: AgentEventJson[] = [];
      for await (const event of run) {
        events.push(event);
        if (event.type === 'tool-call') setTimeout(gate.open, 50);
      }
      expect(cut).toBe(true);
      expect(toolCancelled).toBe(false);
      expect(textOf(events)).toBe('Found it.');
      expect(events.filter((event) => event.type === 'start')).toHaveLength(1);
      expect(events.filter((event) => event.type === 'tool-call')).toHaveLength(1);
      expect(events.at(-1)?.type).toBe('finish');
    });

    it('should let a new page follow a run in progress from the start', async () => {
      const base = await start();
      env.emu.script([call('c1', 'slow_lookup'), { message: { content: 'Found it.' } }]);
      const chat = createChatClient({ baseUrl: `${base}/api` });
      const run = chat.send('look it up');
      for await (const event of run) if (event.type === 'tool-call') break;
      const runId = await run.runId;
      expect((await chat.session(await run.sessionId)).activeRunId).toBe(runId);
      setTimeout(gate.open, 50);
      const replayed = await collect(chat.reconnect(runId));
      expect(replayed[0]).toEqual({ type: 'start' });
      expect(textOf(replayed)).toBe('Found it.');
    });
  });

  describe('when a run is stopped mid-answer', () => {
    it('should end it as stopped, start no tool after, and keep what was shown', async () => {
      const store = memoryStore();
      const base = await start({ store });
      let counted = 0;
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        tools: [
          ...tools,
          defineTool({
            name: 'count',
            description: 'Counts',
            parameters: z.object({}),
            execute: () => ++counted,
          }),
        ],
      });
      await handler?.close();
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
      const url = await start({ agent, store });
      expect(url).not.toBe(base);
      env.emu.script([
        {
          message: {
            content: 'Looking it up.',
            tool_calls: [{ id: 'c1', function: { name: 'slow_lookup', arguments: '{}' } }],
          },
        },
        call('c2', 'count'),
        { message: { content: 'Counted.' } },
      ]);
      const chat = createChatClient({ baseUrl: `${url}/api` });
      const run = chat.send('look it up, then count');
      for await (const event of run) if (event.type === 'tool-call') break;
      const runId = await run.runId;
      expect(await chat.stop(runId)).toBe('stopped');
      expect(toolCancelled).toBe(true);
      gate.open();
      const events = await collect(chat.reconnect(runId));
      expect(events.at(-1)?.type).toBe('abort');
      expect(counted).toBe(0);
      const session = await chat.session(await run.sessionId);
      expect(session.activeRunId).toBeNull();
      // The agent's stored run ends too (aborted: failed), so nothing resumes it later.
      expect((await store.getRun(runId))?.status).toBe('failed');
      expect(session.messages).toEqual([
        { role: 'user', content: 'look it up, then count' },
        { role: 'assistant', content: 'Looking it up.' },
      ]);
      // The session takes the next message at once.
      env.emu.reset();
      env.emu.script([{ message: { content: 'Next.' } }]);
      expect(textOf(await collect(chat.send('next', { sessionId: await run.sessionId })))).toBe('Next.');
    });
  });

  describe('when a session has a pending approval', () => {
    it('should tell it, refuse a new message with 409 naming the call, or decline it on request', async () => {
      const base = await start();
      const chat = createChatClient({ baseUrl: `${base}/api` });
      env.emu.script([call('c1', 'delete_file', { id: 'f1' })]);
      const first = chat.send('Delete f1');
      await collect(first);
      const sessionId = await first.sessionId;
      const view = (await (await fetch(`${base}/api/sessions/${sessionId}`)).json()) as Record<
        string,
        unknown
      >;
      expect(view).toMatchObject({
        activeRunId: null,
        pausedRunId: await first.runId,
        pendingApprovals: [{ toolCallId: 'c1', toolName: 'delete_file', arguments: { id: 'f1' } }],
      });
      const post = (body: object) =>
        fetch(`${base}/api/chat`, { method: 'POST', body: JSON.stringify({ sessionId, ...body }) });
      const refused = await post({ message: 'Never mind' });
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({
        error: {
          pendingToolCallIds: ['c1'],
          message: expect.stringContaining('decide the pending tool call first (c1)'),
        },
      });
      env.emu.script([{ message: { content: 'Fine.' } }]);
      const declined = await post({ message: 'Never mind', rejectPending: true });
      expect(declined.status).toBe(200);
      await declined.text();
      const after = (await (await fetch(`${base}/api/sessions/${sessionId}`)).json()) as {
        messages: Array<{ role: string; tool_calls?: unknown }>;
        pendingApprovals: unknown[];
      };
      expect(after.pendingApprovals).toEqual([]);
      expect(after.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(after.messages.some((m) => m.tool_calls !== undefined)).toBe(false);
      const approve = await fetch(`${base}/api/runs/${await first.runId}/approvals`, {
        method: 'POST',
        body: JSON.stringify({ decisions: [{ toolCallId: 'c1', approved: true }] }),
      });
      expect(approve.status).toBe(409);
    });

    it('should apply one of two concurrent decisions and answer the other 409', async () => {
      const base = await start();
      const chat = createChatClient({ baseUrl: `${base}/api` });
      env.emu.script([call('c1', 'delete_file', { id: 'f1' }), { message: { content: 'Deleted.' } }]);
      const first = chat.send('Delete f1');
      await collect(first);
      const runId = await first.runId;
      const decide = () =>
        fetch(`${base}/api/runs/${runId}/approvals`, {
          method: 'POST',
          body: JSON.stringify({ decisions: [{ toolCallId: 'c1', approved: true }] }),
        });
      const answers = await Promise.all([decide(), decide()]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      await Promise.all(answers.map((a) => a.text()));
      const session = await chat.session(await first.sessionId);
      expect(session.messages.filter((m) => m.role === 'tool')).toHaveLength(1);
    });
  });

  describe('when a custom runner refuses to continue a paused run', () => {
    it('should answer the failure and keep the run paused for a retry', async () => {
      const store = memoryStore();
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools });
      const inner = inProcessChatRunner({ agent, store: store as ChatStateStore });
      let refuse = true;
      const runner: ChatRunner = {
        ...inner,
        async continue(run) {
          if (refuse) throw new Error('queue unavailable');
          return inner.continue(run);
        },
      };
      const errors: unknown[] = [];
      handler = createChatHandler({ agent, store, runner, onError: (error) => errors.push(error) });
      const h = handler;
      server = createServer((req, res) => void h.node(req, res));
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const chat = createChatClient({ baseUrl: `${base}/api` });
      env.emu.script([call('c1', 'delete_file', { id: 'f1' }), { message: { content: 'Deleted.' } }]);
      const first = chat.send('Delete f1');
      await collect(first);
      const runId = await first.runId;
      const refused = await fetch(`${base}/api/runs/${runId}/approvals`, {
        method: 'POST',
        body: JSON.stringify({ decisions: [{ toolCallId: 'c1', approved: true }] }),
      });
      expect(refused.status).toBe(500);
      expect(errors).toEqual([expect.objectContaining({ message: 'queue unavailable' })]);
      const session = await chat.session(await first.sessionId);
      expect(session).toMatchObject({ activeRunId: null, pendingApprovals: [{ toolCallId: 'c1' }] });
      refuse = false;
      expect(textOf(await collect(chat.decide(runId, [{ toolCallId: 'c1', approved: true }])))).toBe(
        'Deleted.',
      );
    });
  });

  describe('when a body parser (express.json()) read the body before the handler', () => {
    it('should use the parsed body', async () => {
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash' });
      handler = createChatHandler({ agent });
      const h = handler;
      server = createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        Object.assign(req, { body: JSON.parse(Buffer.concat(chunks).toString()) });
        await h.node(req, res);
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      env.emu.script([{ message: { content: 'Parsed' } }]);
      const events = await collect(createChatClient({ baseUrl: `${base}/api` }).send('Hi'));
      expect(textOf(events)).toBe('Parsed');
    });
  });

  describe('when the request is bad', () => {
    it('should answer 400 naming the field, and 404 for an unknown run', async () => {
      const base = await start();
      const post = (body: unknown) =>
        fetch(`${base}/api/chat`, { method: 'POST', body: JSON.stringify(body) }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { error: { message: string } },
        }));
      expect(await post({})).toEqual({
        status: 400,
        body: { error: { message: 'message: required non-empty string' } },
      });
      expect((await post({ message: 'x', sessionId: 'a b' })).body.error.message).toMatch(/^sessionId:/);
      const missing = await fetch(`${base}/api/runs/nope/events`);
      expect(missing.status).toBe(404);
      const approvals = await fetch(`${base}/api/runs/nope/approvals`, {
        method: 'POST',
        body: JSON.stringify({ decisions: [] }),
      });
      expect(approvals.status).toBe(404);
    });
  });
});
