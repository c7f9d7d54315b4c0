import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { McpConnectionError, McpToolCallError } from '../../src/mcp/errors.js';
import { connectMcpServer, type McpServerConnection } from '../../src/mcp/mcp-server-connection.js';
import type { McpStdioOptions } from '../../src/mcp/mcp-server-options.js';
import { createToolSet } from '../../src/tools/create-tool-set.js';
import { ToolDefinitionError } from '../../src/tools/errors.js';
import { executeToolCall } from '../../src/tools/execute-tool-call.js';
import type { Tool } from '../../src/tools/tool.js';
import { type McpHttpFixture, startMcpHttpFixture } from '../helpers/start-mcp-http-fixture.js';
import { chatRequests, useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const fixture = fileURLToPath(new URL('./fixtures/stdio-fixture-server.mjs', import.meta.url));
const env = useAgentTestEnv();
const open: McpServerConnection[] = [];

async function connectStdio(overrides: Partial<McpStdioOptions> = {}) {
  const connection = await connectMcpServer({
    name: 'fixture',
    command: process.execPath,
    args: [fixture],
    ...overrides,
  });
  open.push(connection);
  return connection;
}

function toolNamed(connection: McpServerConnection, name: string): Tool {
  const tool = connection.tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${connection.tools.map((t) => t.name).join(', ')}`);
  return tool;
}

function call(connection: McpServerConnection, name: string, args: unknown = {}, signal?: AbortSignal) {
  return executeToolCall({
    toolSet: createToolSet(connection.tools),
    signal,
    call: { id: `call_${name}`, type: 'function', function: { name, arguments: JSON.stringify(args) } },
  });
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

describe('connectMcpServer', () => {
  describe('when the server is spawned over stdio', () => {
    it('should turn every listed tool into an agent tool with its JSON Schema as given', async () => {
      const connection = await connectStdio();
      expect(connection.transport).toBe('stdio');
      expect(connection.tools.map((tool) => tool.name)).toEqual([
        'echo',
        'add',
        'pixel',
        'fail',
        'delete_thing',
        'sleep',
        'cancelled_count',
        'call_count',
        'add_tool',
      ]);
      const echo = toolNamed(connection, 'echo');
      expect(echo.definition.function.description).toBe('Echoes the text back.');
      expect(echo.definition.function.parameters).toMatchObject({
        type: 'object',
        properties: { text: { type: 'string', description: 'Text to echo' } },
        required: ['text'],
      });
      expect(toolNamed(connection, 'add').idempotent).toBe(true);
      expect(toolNamed(connection, 'echo').idempotent).toBe(false);
    });

    it('should turn text, structured content and images into the tool message text', async () => {
      const connection = await connectStdio();
      expect((await call(connection, 'echo', { text: 'hi there' })).content).toBe('hi there');
      expect((await call(connection, 'add', { a: 2, b: 3 })).content).toBe('{"sum":5}');
      expect((await call(connection, 'pixel')).content).toBe(
        'Here is the pixel:\n[image image/png, 68 bytes]',
      );
    });

    it('should report an isError result to the model as a failing tool, keeping the server text', async () => {
      const connection = await connectStdio();
      const outcome = await call(connection, 'fail');
      expect(outcome.status).toBe('error');
      expect(outcome.content).toBe('Error in fail: boom: the fixture failed on purpose');
      expect(McpToolCallError.isInstance(outcome.error?.cause)).toBe(true);
    });

    it('should check arguments against the schema before calling the server', async () => {
      const connection = await connectStdio();
      const outcome = await call(connection, 'echo', { text: 42 });
      expect(outcome.status).toBe('invalid-arguments');
      expect(outcome.content).toContain('text');
      expect((await call(connection, 'call_count')).content).toBe('0');
    });

    it('should cancel a running call on the server when the run is aborted, and time calls out', async () => {
      const connection = await connectStdio({ allow: ['sleep', 'cancelled_count'] });
      const controller = new AbortController();
      const started = call(connection, 'sleep', { ms: 10_000 }, controller.signal);
      setTimeout(() => controller.abort(), 100);
      expect((await started).status).toBe('aborted');
      await expect.poll(async () => (await call(connection, 'cancelled_count')).content).toBe('1');
      const quick = await connectStdio({ allow: ['sleep'], timeoutMs: 200 });
      const timedOut = await call(quick, 'sleep', { ms: 10_000 });
      expect(timedOut.status).toBe('timeout');
    });

    it('should not leave the child running when connecting fails on a tool name', async () => {
      const before = await childPids();
      await connectStdio({ args: [fixture, '--long-name'] }).catch(() => undefined);
      await expect.poll(async () => (await childPids()).filter((pid) => !before.includes(pid))).toEqual([]);
    });

    it('should end the child process on close()', async () => {
      const connection = await connectStdio();
      const pid = connection.pid;
      expect(pid).toBeTypeOf('number');
      await connection.close();
      await expect.poll(() => isAlive(pid!)).toBe(false);
      await expect(call(connection, 'echo', { text: 'x' })).resolves.toMatchObject({ status: 'error' });
    });
  });

  describe('when the server cannot be started', () => {
    it('should reject with McpConnectionError naming the server', async () => {
      const error = await connectMcpServer({ name: 'ghost', command: '/nonexistent/mcp-server' }).catch(
        (failure: unknown) => failure,
      );
      expect(McpConnectionError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/^MCP server ghost: could not connect/);
    });
  });

  describe('when filters, names and approvals are configured', () => {
    it('should keep only allowed tools and drop denied ones', async () => {
      const allowed = await connectStdio({ allow: ['echo', 'add', 'fail'], deny: ['fail'] });
      expect(allowed.tools.map((tool) => tool.name)).toEqual(['echo', 'add']);
    });

    it('should prefix names, and let rename win over the prefix', async () => {
      const connection = await connectStdio({
        prefix: 'fx_',
        rename: { echo: 'say' },
        allow: ['echo', 'add'],
      });
      expect(connection.tools.map((tool) => tool.name)).toEqual(['say', 'fx_add']);
      expect((await call(connection, 'say', { text: 'renamed' })).content).toBe('renamed');
    });

    it('should refuse a name longer than 64 characters with a clear error instead of rewriting it', async () => {
      const error = await connectStdio({ args: [fixture, '--long-name'] }).catch(
        (failure: unknown) => failure,
      );
      expect(ToolDefinitionError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /MCP server fixture: tool name is 86 characters long \(at most 64\)/,
      );
      expect((error as Error).message).toContain('rename');
      const renamed = await connectStdio({
        args: [fixture, '--long-name'],
        rename: { [`a_${'very_'.repeat(14)}long_tool_name`]: 'long_tool' },
      });
      expect(renamed.tools.map((tool) => tool.name)).toContain('long_tool');
    });

    it('should mark tools needing approval: all, destructive ones, or per tool', async () => {
      const destructive = await connectStdio({
        needsApproval: 'destructive',
        allow: ['add', 'delete_thing'],
      });
      expect(destructive.tools.map((tool) => [tool.name, tool.needsApproval])).toEqual([
        ['add', false],
        ['delete_thing', true],
      ]);
      const perTool = await connectStdio({ needsApproval: { echo: true }, allow: ['echo', 'add'] });
      expect(perTool.tools.map((tool) => tool.needsApproval)).toEqual([true, false]);
    });
  });

  describe('when the server says its tool list changed', () => {
    it('should refresh the tools and tell onToolsChanged', async () => {
      let changed: readonly Tool[] | undefined;
      const connection = await connectStdio({
        onToolsChanged: (tools) => {
          changed = tools;
        },
      });
      expect((await call(connection, 'add_tool')).content).toBe('added');
      await expect.poll(() => changed?.map((tool) => tool.name)).toContain('late_tool');
      expect(connection.tools.map((tool) => tool.name)).toContain('late_tool');
      expect((await call(connection, 'late_tool')).content).toBe('late');
    });
  });

  describe('when an agent uses the tools', () => {
    it('should send the schemas and feed the MCP result back as the tool message', async () => {
      const connection = await connectStdio({ allow: ['echo'] });
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ id: 'c1', function: { name: 'echo', arguments: '{"text":"from the model"}' } }],
          },
        },
        { message: { content: 'Done.' } },
      ]);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: connection.tools });
      const result = await agent.run('Echo something');
      expect(result.text).toBe('Done.');
      const [first, second] = chatRequests(env.emu);
      expect(
        (first?.tools as Array<{ function: { name: string } }> | undefined)?.map(
          (tool) => tool.function.name,
        ),
      ).toEqual(['echo']);
      expect(second?.messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'c1',
        content: 'from the model',
      });
    });
  });
});

describe('connectMcpServer over HTTP', () => {
  let server: McpHttpFixture;
  beforeAll(async () => {
    server = await startMcpHttpFixture();
  });
  afterAll(() => server.close());

  describe('when the server speaks Streamable HTTP', () => {
    it('should list and call tools, and end the session with DELETE on close()', async () => {
      const connection = await connectMcpServer({ url: server.url, allow: ['echo'] });
      open.push(connection);
      expect(connection.transport).toBe('streamable-http');
      expect((await call(connection, 'echo', { text: 'over http' })).content).toBe('over http');
      await connection.close();
      expect(server.http.requests.some((request) => request.method === 'DELETE')).toBe(true);
    });

    it('should re-initialise a dropped session (404) once and retry the call transparently', async () => {
      const connection = await connectMcpServer({ url: server.url });
      open.push(connection);
      const before = server.sessionsStarted;
      await server.dropSessions();
      expect((await call(connection, 'echo', { text: 'again' })).content).toBe('again');
      expect(server.sessionsStarted).toBe(before + 1);
      await server.dropSessions();
      const outcomes = await Promise.all([
        call(connection, 'echo', { text: 'one' }),
        call(connection, 'echo', { text: 'two' }),
      ]);
      expect(outcomes.map((outcome) => outcome.content)).toEqual(['one', 'two']);
      expect(server.sessionsStarted).toBe(before + 2);
    });
  });

  describe('when the server loses every session', () => {
    it('should re-initialise once per failure, report the 404 instead of looping, and recover later', async () => {
      const lossy = await startMcpHttpFixture();
      try {
        const connection = await connectMcpServer({ url: lossy.url, allow: ['echo'] });
        open.push(connection);
        lossy.loseEverySession();
        await lossy.dropSessions();
        const before = lossy.sessionsStarted;
        const outcome = await call(connection, 'echo', { text: 'lost' });
        expect(outcome.status).toBe('error');
        expect(outcome.content).toMatch(
          /^Error in echo: MCP server \S+: could not connect \(Streamable HTTP error: .*Session not found/,
        );
        expect(lossy.sessionsStarted).toBe(before + 1);
        lossy.loseEverySession(false);
        expect((await call(connection, 'echo', { text: 'back' })).content).toBe('back');
        expect(connection.transport).toBe('streamable-http');
      } finally {
        await lossy.close();
      }
    });
  });

  describe('when the server only speaks the legacy SSE transport', () => {
    it('should fall back to SSE', async () => {
      const connection = await connectMcpServer({ url: server.sseUrl, allow: ['add'] });
      open.push(connection);
      expect(connection.transport).toBe('sse');
      expect((await call(connection, 'add', { a: 1, b: 1 })).content).toBe('{"sum":2}');
    });
  });
});

/** Pids of this process's live children running the fixture server. */
async function childPids(): Promise<number[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8');
      if (ppid === process.pid && cmdline.includes('stdio-fixture-server')) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
