import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpToolServer, type McpToolServerOptions } from '../../src/mcp/create-mcp-tool-server.js';
import { type McpHttpEndpoint, type McpHttpServeOptions, serveMcpHttp } from '../../src/mcp/serve-mcp.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { eventually } from '../helpers/eventually.js';
import { randomRequest, seededRandom } from '../helpers/fuzz-requests.js';
import { sendRawRequest } from '../helpers/send-raw-request.js';

const deleted: string[] = [];
const tools = [
  defineTool({
    name: 'echo',
    description: 'Echoes the text.',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  }),
  defineTool({
    name: 'delete_note',
    description: 'Deletes a note.',
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    execute: ({ id }) => {
      deleted.push(id);
      return `deleted ${id}`;
    },
  }),
];

let endpoint: McpHttpEndpoint | undefined;
const clients: Client[] = [];

async function start(
  options: Partial<McpHttpServeOptions> = {},
  server: Partial<McpToolServerOptions> = {},
): Promise<McpHttpEndpoint> {
  endpoint = await serveMcpHttp({
    createSession: () => createMcpToolServer({ tools, ...server }),
    port: 0,
    ...options,
  });
  return endpoint;
}

async function connect(
  url: string,
  token?: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  const client = new Client({ name: 'test', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return { client, transport };
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

afterEach(async () => {
  deleted.length = 0;
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await endpoint?.close();
  endpoint = undefined;
});

describe('serveMcpHttp', () => {
  describe('when a request names another Host or Origin (DNS rebinding)', () => {
    it.each([
      [{ host: 'attacker.example' }],
      [{ host: 'attacker.example', origin: 'http://attacker.example' }],
      [{ origin: 'http://attacker.example' }],
      [{ origin: 'null' }],
    ])('should refuse %j with 403 before opening a session', async (headers) => {
      const { url } = await start();
      const port = Number(new URL(url).port);
      const answer = await sendRawRequest(port, {
        method: 'POST',
        target: '/mcp',
        headers: { ...mcpHeaders, ...headers },
        body: initialize,
      });
      expect(answer.status).toBe(403);
      expect(answer.headers.toLowerCase()).not.toContain('mcp-session-id');
    });

    it('should serve the official client on its own address', async () => {
      const { url } = await start();
      const { client } = await connect(url);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'delete_note']);
    });
  });

  describe('when a token is set', () => {
    it('should answer 401 to a client without it, and serve one with it', async () => {
      const { url } = await start({ token: 'secret-token' });
      await expect(connect(url)).rejects.toThrow(/401|unauthorized/i);
      await expect(connect(url, 'wrong')).rejects.toThrow(/401|unauthorized/i);
      const { client } = await connect(url, 'secret-token');
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
    });

    it('should let only the token that opened a session use or delete it', async () => {
      const { url } = await start({ token: ['token-a', 'token-b'] });
      const { transport } = await connect(url, 'token-a');
      const sessionId = transport.sessionId!;
      const port = Number(new URL(url).port);
      const asB = await sendRawRequest(port, {
        method: 'DELETE',
        target: '/mcp',
        headers: { authorization: 'Bearer token-b', 'mcp-session-id': sessionId },
      });
      expect(asB.status).toBe(404);
      const asA = await sendRawRequest(port, {
        method: 'DELETE',
        target: '/mcp',
        headers: { authorization: 'Bearer token-a', 'mcp-session-id': sessionId },
      });
      expect(asA.status).toBe(200);
    });

    it('should be required off loopback', async () => {
      await expect(
        serveMcpHttp({ createSession: () => createMcpToolServer({ tools }), port: 0, host: '0.0.0.0' }),
      ).rejects.toThrow(/token is required/);
    });
  });

  describe('when a body passes maxBodyBytes', () => {
    it('should answer 413 without reading it, and keep serving', async () => {
      const { url } = await start({ maxBodyBytes: 1024 });
      const port = Number(new URL(url).port);
      const declared = await sendRawRequest(port, {
        method: 'POST',
        target: '/mcp',
        headers: { ...mcpHeaders, 'content-length': String(64 * 1024 * 1024) },
        body: '{',
      });
      expect(declared.status).toBe(413);
      const chunk = 'x'.repeat(800);
      const chunked = await sendRawRequest(port, {
        method: 'POST',
        target: '/mcp',
        headers: { ...mcpHeaders, 'transfer-encoding': 'chunked' },
        body: `${[chunk, chunk].map((c) => `${c.length.toString(16)}\r\n${c}\r\n`).join('')}0\r\n\r\n`,
      });
      expect(chunked.status).toBe(413);
      const { client } = await connect(url);
      expect((await client.listTools()).tools).toHaveLength(2);
    });
  });

  describe('when a session stays idle', () => {
    it('should close it after sessionIdleMs', async () => {
      const { url } = await start({ sessionIdleMs: 200 });
      const port = Number(new URL(url).port);
      const opened = await sendRawRequest(port, {
        method: 'POST',
        target: '/mcp',
        headers: mcpHeaders,
        body: initialize,
      });
      const sessionId = /mcp-session-id: (\S+)/i.exec(opened.headers)?.[1];
      expect(sessionId).toBeDefined();
      // Each probe is itself a request that keeps the session alive: leave more than the idle time after it.
      await eventually(async () => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        const answer = await sendRawRequest(port, {
          method: 'POST',
          target: '/mcp',
          headers: { ...mcpHeaders, 'mcp-session-id': sessionId! },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        });
        return answer.status === 404;
      }, 20_000);
    });
  });

  describe('when one client opens sessions in a loop (a session flood)', () => {
    it("should keep at most maxSessions of that token's, closing its oldest, and never another's", async () => {
      const { url } = await start({ token: ['token-a', 'token-b'], maxSessions: 10 });
      const open = async (token: string) => {
        const answer = await fetch(url, {
          method: 'POST',
          headers: { ...mcpHeaders, authorization: `Bearer ${token}` },
          body: initialize,
        });
        await answer.text();
        return answer.headers.get('mcp-session-id')!;
      };
      const list = async (token: string, sessionId: string) => {
        const answer = await fetch(url, {
          method: 'POST',
          headers: { ...mcpHeaders, authorization: `Bearer ${token}`, 'mcp-session-id': sessionId },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        });
        await answer.text();
        return answer.status;
      };
      const bob = await open('token-b');
      const flood: string[] = [];
      for (let n = 0; n < 1_000; n++) flood.push(await open('token-a'));
      expect(endpoint!.sessionCount()).toBe(11);
      expect(await list('token-b', bob)).toBe(200);
      expect(await list('token-a', flood.at(-1)!)).toBe(200);
      expect(await list('token-a', flood[0]!)).toBe(404);
      expect(await list('token-a', flood.at(-11)!)).toBe(404);
    }, 120_000);

    it('should keep a session in use over newer idle ones', async () => {
      const { url } = await start({ maxSessions: 3 });
      const open = async () => {
        const answer = await fetch(url, { method: 'POST', headers: mcpHeaders, body: initialize });
        await answer.text();
        return answer.headers.get('mcp-session-id')!;
      };
      const used = await open();
      const others = [await open(), await open()];
      const touch = await fetch(url, {
        method: 'POST',
        headers: { ...mcpHeaders, 'mcp-session-id': used },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      await touch.text();
      await open();
      const status = async (sessionId: string) => {
        const answer = await fetch(url, {
          method: 'POST',
          headers: { ...mcpHeaders, 'mcp-session-id': sessionId },
          body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
        });
        await answer.text();
        return answer.status;
      };
      expect(await status(used)).toBe(200);
      expect(await status(others[0]!)).toBe(404);
    });
  });

  describe('when a tool needs approval', () => {
    it('should list it as destructive and refuse to run it by default', async () => {
      const { url } = await start();
      const { client } = await connect(url);
      const listed = (await client.listTools()).tools.find((tool) => tool.name === 'delete_note');
      expect(listed?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
      const result = await client.callTool({ name: 'delete_note', arguments: { id: 'n1' } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('needs approval');
      expect(deleted).toEqual([]);
    });

    it("should run it with approvalTools: 'run'", async () => {
      const { url } = await start({}, { approvalTools: 'run' });
      const { client } = await connect(url);
      const result = await client.callTool({ name: 'delete_note', arguments: { id: 'n1' } });
      expect(result.isError).toBeUndefined();
      expect(deleted).toEqual(['n1']);
    });
  });

  describe('when fuzzed with random methods, paths, headers and bodies', () => {
    it('should answer every request without a 500 and keep serving', async () => {
      const { url } = await start();
      const port = Number(new URL(url).port);
      const random = seededRandom(3);
      for (let i = 0; i < 300; i++) {
        const request = randomRequest(random, ['/mcp', '/mcp/', '/', '/sse']);
        if (random() < 0.5) request.headers = { ...mcpHeaders, ...request.headers };
        const { status } = await sendRawRequest(port, request);
        expect(status, JSON.stringify(request).slice(0, 300)).toBeGreaterThanOrEqual(200);
        expect(status, JSON.stringify(request).slice(0, 300)).toBeLessThan(500);
      }
      const { client } = await connect(url);
      expect((await client.listTools()).tools).toHaveLength(2);
    });
  });
});
