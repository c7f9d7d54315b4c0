import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import type { ScriptedAnswer } from '../../src/emulator/types.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { type ChatHandler, createChatHandler } from '../../src/web/create-chat-handler.js';
import { REDIS_URL, serviceAvailable, uniqueNamespace } from '../helpers/infra-services.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';
import {
  type AnyUIMessage,
  chunksOf,
  MAJORS,
  openChat,
  postMessage,
  textOf,
} from './fixtures/headless-chat.js';

const env = useAgentTestEnv();
const redisUp = await serviceAvailable('redis');

// A tool the browser answers (the AI SDK's tool without execute), beside one the server runs.
const location = defineTool({
  name: 'get_location',
  description: 'The location of the user, from the browser',
  parameters: z.object({ precise: z.boolean() }),
});
let weatherRuns = 0;
const weather = defineTool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => {
    weatherRuns++;
    return { city, condition: 'light rain' };
  },
});

const servers: Server[] = [];
const handlers: ChatHandler[] = [];
afterEach(async () => {
  for (const handler of handlers.splice(0)) await handler.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  weatherRuns = 0;
});

async function start(store?: Store): Promise<{ api: string; handler: ChatHandler }> {
  const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [location, weather] });
  const handler = createChatHandler({ agent, sse: { heartbeatMs: 0 }, ...(store ? { store } : {}) });
  handlers.push(handler);
  const server = createServer((req, res) => void handler.node(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ui`, handler };
}

const call = (id: string, name: string, args: object): ScriptedAnswer => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }] },
});

// The automatic POST after `addToolOutput` runs after the first request resolved: wait for its answer.
async function settled(chat: { state: { status: string; messages: AnyUIMessage[] } }, text: string) {
  for (
    let i = 0;
    i < 500 && !(chat.state.status === 'ready' && textOf(chat.state.messages.at(-1)) === text);
    i++
  )
    // Polling the chat's state: the engine emits no event for this condition.
    await new Promise((resolve) => setTimeout(resolve, 10));
}

const postBody = (api: string, id: string, messages: unknown[]) =>
  fetch(api, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, trigger: 'submit-message', messages }),
  });

describe.each(MAJORS)('client-side tools on /api/ui with useChat of %s', (_major, sdk) => {
  it('should stream the call for onToolCall, pause, and answer with the output addToolOutput posts', async () => {
    const { api } = await start();
    env.emu.script([
      call('c_loc', 'get_location', { precise: true }),
      { message: { content: 'You are in Paris: light rain.' } },
    ]);
    const seen: unknown[] = [];
    const chat = openChat(sdk, api, 'chat-client-tool', {
      onToolCall: ({ toolCall }) => {
        seen.push(toolCall);
        // As the AI SDK's docs do it: not awaited inside onToolCall.
        void chat.addToolOutput({
          tool: 'get_location',
          toolCallId: toolCall.toolCallId,
          output: { city: 'Paris' },
        });
      },
    });
    await chat.sendMessage({ text: 'Weather here?' });
    await settled(chat, 'You are in Paris: light rain.');

    expect(chat.state.error).toBeUndefined();
    expect(seen).toEqual([
      expect.objectContaining({ toolCallId: 'c_loc', toolName: 'get_location', input: { precise: true } }),
    ]);
    expect(textOf(chat.state.messages.at(-1))).toBe('You are in Paris: light rain.');
    const requests = chatRequests(env.emu);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'c_loc',
      content: '{"city":"Paris"}',
    });
    const part = chat.state.messages.at(-1)!.parts.find((p) => p.type === 'tool-get_location');
    expect(part).toMatchObject({ state: 'output-available', output: { city: 'Paris' } });

    // The same post again (a retry): the answer it led to, applied once, no model request.
    const again = await chunksOf(await postBody(api, 'chat-client-tool', chat.state.messages));
    expect(again.map((c) => c.type)).toContain('finish');
    expect(chatRequests(env.emu)).toHaveLength(2);
  });

  it('should send tool-input-available and no approval request, then refuse an output for a call the run never made', async () => {
    const { api } = await start();
    env.emu.script([call('c_loc', 'get_location', { precise: false })]);
    const chunks = await chunksOf(await postMessage(api, 'chat-raw', 'Where am I?'));
    const types = chunks.map((c) => c.type);
    expect(types).toContain('tool-input-available');
    expect(types).not.toContain('tool-approval-request');
    expect(types).not.toContain('tool-output-available');
    expect(types.at(-1)).toBe('finish');
    // A reload shows the call waiting for the page's output, not for an approval.
    const restored = (await (await fetch(`${api}/chat-raw/messages`)).json()) as AnyUIMessage[];
    const waiting = restored.at(-1)!.parts.find((p) => p.type === 'tool-get_location');
    expect(waiting).toMatchObject({
      toolCallId: 'c_loc',
      state: 'input-available',
      input: { precise: false },
    });

    const assistant = (toolCallId: string) => ({
      id: 'a-1',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        {
          type: 'tool-get_location',
          toolCallId,
          state: 'output-available',
          input: {},
          output: { city: 'Rome' },
        },
      ],
    });
    const user = { id: 'u-1', role: 'user', parts: [{ type: 'text', text: 'Where am I?' }] };
    const foreign = await postBody(api, 'chat-raw', [user, assistant('c_elsewhere')]);
    expect(foreign.status).toBe(409);
    expect(await foreign.text()).toMatch(/c_elsewhere/);
    // Still paused: the right output continues it.
    env.emu.script([{ message: { content: 'Rome.' } }]);
    const right = await chunksOf(await postBody(api, 'chat-raw', [user, assistant('c_loc')]));
    expect(right.map((c) => c.type)).toContain('finish');
    expect(chatRequests(env.emu).at(-1)!.messages.at(-1)).toMatchObject({ tool_call_id: 'c_loc' });
    expect(weatherRuns).toBe(0);
  });

  it('should continue on /api/chat with { toolCallId, output } posted to the run approvals route', async () => {
    const { handler } = await start();
    env.emu.script([call('c_loc', 'get_location', { precise: true }), { message: { content: 'Nice.' } }]);
    const post = (path: string, body: object) =>
      handler.fetch(
        new Request(`http://chat/api${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    const first = await post('/chat', { message: 'Where am I?' });
    const runId = first.headers.get('x-run-id')!;
    const events = await first.text();
    expect(events).toContain('"type":"tool-call"');
    expect(events).not.toContain('tool-approval-request');
    const sessionId = first.headers.get('x-session-id')!;
    const session = (await (
      await handler.fetch(new Request(`http://chat/api/sessions/${sessionId}`))
    ).json()) as {
      pendingApprovals: unknown[];
    };
    expect(session.pendingApprovals).toEqual([
      expect.objectContaining({ toolCallId: 'c_loc', toolName: 'get_location', clientSide: true }),
    ]);
    const refused = await post(`/runs/${runId}/approvals`, {
      decisions: [{ toolCallId: 'c_loc', approved: true }],
    });
    expect(refused.status).toBe(409);
    const next = await post(`/runs/${runId}/approvals`, {
      decisions: [{ toolCallId: 'c_loc', output: { city: 'Nice' } }],
    });
    expect(next.status).toBe(200);
    expect(await next.text()).toContain('Nice.');
    expect(chatRequests(env.emu)[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'c_loc',
      content: '{"city":"Nice"}',
    });
  });

  describe.skipIf(!redisUp)('when the output reaches another server on the same Redis store', () => {
    const prefix = `${uniqueNamespace('client-tools')}:`;
    const redis = redisUp ? new Redis(REDIS_URL) : undefined;
    afterAll(async () => {
      const keys = await redis!.keys(`${prefix}*`);
      if (keys.length > 0) await redis!.del(...keys);
      await redis!.quit();
    });

    it('should continue the paused run there with the output', async () => {
      const storeA = redisStore({ url: REDIS_URL, prefix });
      const storeB = redisStore({ url: REDIS_URL, prefix });
      try {
        const a = await start(storeA);
        const b = await start(storeB);
        env.emu.script([call('c_loc', 'get_location', { precise: true }), { message: { content: 'Lyon.' } }]);
        const first = openChat(sdk, a.api, 'chat-two-servers');
        await first.sendMessage({ text: 'Where am I?' });
        expect(first.state.status).toBe('ready');
        await a.handler.close();

        const second = openChat(sdk, b.api, 'chat-two-servers', { messages: first.state.messages });
        await second.addToolOutput({ tool: 'get_location', toolCallId: 'c_loc', output: { city: 'Lyon' } });
        await settled(second, 'Lyon.');
        expect(second.state.error).toBeUndefined();
        expect(textOf(second.state.messages.at(-1))).toBe('Lyon.');
        expect(chatRequests(env.emu)[1]!.messages.at(-1)).toEqual({
          role: 'tool',
          tool_call_id: 'c_loc',
          content: '{"city":"Lyon"}',
        });
      } finally {
        await storeA.close();
        await storeB.close();
      }
    });
  });
});
