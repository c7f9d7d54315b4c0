import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { eventually } from '../helpers/eventually.js';
import { memoryIo } from '../helpers/memory-io.js';
import { childEnv, cliMain, tsxImport } from '../helpers/run-cli-process.js';

const userTools = fileURLToPath(new URL('../mcp/fixtures/user-tools.ts', import.meta.url));
const noisyTools = fileURLToPath(new URL('../mcp/fixtures/noisy-tools.ts', import.meta.url));
type Result = {
  content: Array<{ type: string; text: string }>;
  isError?: boolean;
  structuredContent?: unknown;
};

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'svc-mcp-serve-'));
  await writeFile(path.join(root, 'notes.txt'), 'The answer is 42.');
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The CLI as an MCP server over stdio, driven by the SDK's client; stderr and client errors are kept. */
async function startStdio(extra: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', tsxImport, cliMain, 'mcp', 'serve', '--root', root, ...extra],
    // The SDK's safe default environment has no SVC_* variables: the embedded emulator answers, keeping
    // its state in this test's folder (the per-user one outlives the run, and names are unique there).
    env: {
      ...getDefaultEnvironment(),
      NO_COLOR: '1',
      SVC_AGENTS_EMULATOR_DIR: path.join(root, '.emulator'),
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, errors, stderr: () => stderr };
}

const callTool = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<Result>;

describe('svc-agents mcp serve', () => {
  describe('when served over stdio on the embedded emulator', () => {
    let server: Awaited<ReturnType<typeof startStdio>>;
    beforeAll(async () => {
      server = await startStdio(['--tools', `${userTools},${noisyTools}`]);
    }, 30_000);
    afterAll(() => server?.client.close());

    it('should list knowledge-base, file and user tools with read-only and destructive hints', async () => {
      const { tools } = await server.client.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect([...byName.keys()]).toEqual(
        expect.arrayContaining([
          'list_knowledge_bases',
          'create_knowledge_base',
          'remove_file_from_knowledge_base',
          'search_knowledge_base',
          'list_files',
          'upload_file',
          'delete_file',
          'shout',
        ]),
      );
      expect(byName.get('list_knowledge_bases')?.annotations).toEqual({ readOnlyHint: true });
      expect(byName.get('search_knowledge_base')?.annotations?.readOnlyHint).toBe(true);
      expect(byName.get('delete_file')?.annotations).toMatchObject({ destructiveHint: true });
      expect(byName.get('remove_file_from_knowledge_base')?.annotations).toMatchObject({
        destructiveHint: true,
      });
      expect(byName.get('create_knowledge_base')?.inputSchema).toMatchObject({
        type: 'object',
        required: ['name'],
      });
      expect(server.stderr()).toContain('embedded emulator');
    });

    it('should run tools, including the user module and uploads from --root, and answer structured content', async () => {
      const created = await callTool(server.client, 'create_knowledge_base', { name: 'manuals' });
      expect(created.isError).toBeUndefined();
      expect(created.structuredContent).toMatchObject({ name: 'manuals' });
      const listed = await callTool(server.client, 'list_knowledge_bases');
      expect(
        JSON.parse(listed.content[0]!.text).knowledge_bases.map((kb: { name: string }) => kb.name),
      ).toContain('manuals');
      expect((await callTool(server.client, 'shout', { text: 'hey' })).content[0]?.text).toBe('HEY');
      const uploaded = await callTool(server.client, 'upload_file', {
        path: 'notes.txt',
        purpose: 'file-extract',
      });
      expect(uploaded.structuredContent).toMatchObject({ filename: 'notes.txt', ready: true });
      const outside = await callTool(server.client, 'upload_file', { path: '../x.txt', purpose: 'storage' });
      expect(outside.isError).toBe(true);
    });

    it('should answer bad arguments and unknown tools with an isError result and keep serving', async () => {
      const bad = await callTool(server.client, 'create_knowledge_base', { name: '_bad name' });
      expect(bad.isError).toBe(true);
      expect(bad.content[0]?.text).toContain('name');
      const unknown = await callTool(server.client, 'no_such_tool');
      expect(unknown.isError).toBe(true);
      expect(unknown.content[0]?.text).toContain('no_such_tool');
      expect((await callTool(server.client, 'list_files')).isError).toBeUndefined();
      // Anything but protocol on stdout would have been a parse error here.
      expect(server.errors).toEqual([]);
    });

    it("should send a --tools module's stdout to stderr and keep the protocol stream clean", async () => {
      expect((await callTool(server.client, 'whisper', { text: 'HeLLo' })).content[0]?.text).toBe('hello');
      expect(server.errors).toEqual([]);
      // stderr is a separate pipe: its lines may arrive after the result.
      await eventually(async () => server.stderr().includes('noisy-tools: a raw write'));
      expect(server.stderr()).toContain('noisy-tools: loaded');
      expect(server.stderr()).toContain('noisy-tools: whispering HeLLo');
    });

    it('should list a tool that needs approval as destructive and refuse its calls', async () => {
      const { tools } = await server.client.listTools();
      expect(tools.find((tool) => tool.name === 'wipe')?.annotations).toMatchObject({
        destructiveHint: true,
      });
      const refused = await callTool(server.client, 'wipe');
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toContain('--allow-approval-tools');
    });
  });

  describe('when --read-only is given', () => {
    it('should leave out every tool that changes or deletes something', async () => {
      const server = await startStdio(['--read-only', '--tools', noisyTools]);
      try {
        const { tools: all } = await server.client.listTools();
        // The module's tool that needs approval is left out; its other tool is the user's to judge.
        expect(all.map((tool) => tool.name)).toContain('whisper');
        const tools = all.filter((tool) => tool.name !== 'whisper');
        expect(tools.map((tool) => tool.name).sort()).toEqual([
          'get_file',
          'get_knowledge_base',
          'list_files',
          'list_knowledge_base_files',
          'list_knowledge_bases',
          'read_file_content',
          'search_knowledge_base',
        ]);
        expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
      } finally {
        await server.client.close();
      }
    }, 30_000);
  });

  describe('when --http binds an address other than loopback without a token', () => {
    it('should fail with a usage error naming --token', async () => {
      const io = memoryIo();
      const code = await runCli(['mcp', 'serve', '--http', '--port', '0', '--host', '0.0.0.0'], io);
      expect(code).not.toBe(0);
      expect(io.err()).toContain('--token');
    });
  });

  describe('when --allow-approval-tools is given', () => {
    it('should run a --tools module tool that needs approval', async () => {
      const server = await startStdio(['--tools', noisyTools, '--allow-approval-tools']);
      try {
        expect((await callTool(server.client, 'wipe')).content[0]?.text).toBe('wiped');
      } finally {
        await server.client.close();
      }
    }, 30_000);
  });

  describe('when --http is given', () => {
    it('should serve Streamable HTTP on the port and say where on stderr', async () => {
      const child = spawn(
        process.execPath,
        ['--import', tsxImport, cliMain, 'mcp', 'serve', '--http', '--port', '0', '--root', root],
        { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      try {
        const url = await listeningUrl(child);
        const client = new Client({ name: 'test', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toContain('list_knowledge_bases');
        const listed = await callTool(client, 'list_knowledge_bases');
        expect(listed.isError).toBeUndefined();
        await client.close();
      } finally {
        child.kill('SIGTERM');
      }
    }, 30_000);
  });
});

function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`mcp serve exited with ${code}: ${stderr}`)));
  });
}
