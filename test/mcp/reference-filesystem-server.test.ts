import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { connectMcpServer, type McpServerConnection } from '../../src/mcp/mcp-server-connection.js';
import { createToolSet } from '../../src/tools/create-tool-set.js';
import { executeToolCall } from '../../src/tools/execute-tool-call.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

// The official reference server (@modelcontextprotocol/server-filesystem, a dev dependency), not one of ours:
// its schemas, results and errors are what a user's third-party server sends.
const serverEntry = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);
const env = useAgentTestEnv();

describe('connectMcpServer with the reference filesystem server', () => {
  let root: string;
  let connection: McpServerConnection;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-mcp-fs-'));
    await writeFile(join(root, 'notes.txt'), 'The project codename is BLUEFINCH.\n');
    connection = await connectMcpServer({
      name: 'filesystem',
      command: process.execPath,
      args: [serverEntry, root],
      needsApproval: 'destructive',
    });
  }, 30_000);

  afterAll(async () => {
    await connection?.close();
    await rm(root, { recursive: true, force: true });
  });

  function call(name: string, args: unknown) {
    return executeToolCall({
      toolSet: createToolSet(connection.tools),
      call: { id: `call_${name}`, type: 'function', function: { name, arguments: JSON.stringify(args) } },
    });
  }

  describe('when its tools are listed', () => {
    it('should keep each JSON Schema as the server gave it, never an empty one', () => {
      const names = connection.tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['read_text_file', 'list_directory', 'write_file']));
      const read = connection.tools.find((tool) => tool.name === 'read_text_file')!;
      expect(read.definition.function.parameters).toMatchObject({
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      });
    });

    it('should ask for approval before tools the server does not mark read-only', () => {
      const approval = (name: string) => connection.tools.find((tool) => tool.name === name)!.needsApproval;
      expect(approval('read_text_file')).toBe(false);
      expect(approval('write_file')).toBe(true);
    });
  });

  describe('when a tool is called', () => {
    it('should return the text content as the tool message', async () => {
      const outcome = await call('read_text_file', { path: join(root, 'notes.txt') });
      expect(outcome.status).toBe('ok');
      expect(outcome.content).toContain('BLUEFINCH');
    });

    it("should turn the server's isError result for a path outside its root into a failed call", async () => {
      const outcome = await call('read_text_file', { path: '/etc/hostname' });
      expect(outcome.status).toBe('error');
      expect(outcome.content).toMatch(/access denied|outside allowed directories/i);
    });
  });

  describe('when an agent uses it', () => {
    it('should answer from the file the server read', async () => {
      env.emu.script([
        {
          message: {
            content: '',
            tool_calls: [
              {
                id: 'c1',
                function: {
                  name: 'read_text_file',
                  arguments: JSON.stringify({ path: join(root, 'notes.txt') }),
                },
              },
            ],
          },
        },
        { message: { content: 'The codename is BLUEFINCH.' } },
      ]);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: connection.tools });
      const result = await agent.run('What is the codename in notes.txt?');
      const tool = result.messages.find((message) => message.role === 'tool');
      expect(tool?.content).toContain('BLUEFINCH');
      expect(result.text).toBe('The codename is BLUEFINCH.');
    });
  });
});
