/**
 * Per-call overhead of an MCP tool over stdio versus the same local defineTool tool, both run through
 * executeToolCall (what the agent loop calls). The tool only echoes its argument, so the difference is the
 * MCP round trip: JSON-RPC over the child's stdin/stdout, the SDK's schema checks on both sides.
 * Run: npx tsx bench/mcp/mcp-overhead.ts [--calls=N]   (writes bench/results/<date>-mcp-overhead.md)
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { connectMcpServer } from '../../src/mcp/index.js';
import { createToolSet } from '../../src/tools/create-tool-set.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { executeToolCall } from '../../src/tools/execute-tool-call.js';
import type { ToolSet } from '../../src/tools/tool.js';

const calls = Number(process.argv.find((arg) => arg.startsWith('--calls='))?.slice(8) ?? 3000);
const warmup = Math.min(500, calls);
const fixture = fileURLToPath(new URL('../../test/mcp/fixtures/stdio-fixture-server.mjs', import.meta.url));

async function measure(toolSet: ToolSet): Promise<number[]> {
  const call = { id: 'c', type: 'function' as const, function: { name: 'echo', arguments: '{"text":"hello"}' } };
  for (let i = 0; i < warmup; i++) await executeToolCall({ toolSet, call });
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    const outcome = await executeToolCall({ toolSet, call });
    times.push(Number(process.hrtime.bigint() - start) / 1000);
    if (outcome.content !== 'hello') throw new Error(`unexpected result ${outcome.content}`);
  }
  return times.sort((a, b) => a - b);
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

const local = defineTool({
  name: 'echo',
  description: 'Echoes the text back.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
const localTimes = await measure(createToolSet([local]));
const mcp = await connectMcpServer({ command: process.execPath, args: [fixture], allow: ['echo'] });
const mcpTimes = await measure(createToolSet(mcp.tools));
await mcp.close();

const row = (name: string, times: number[]) =>
  `| ${name} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.9).toFixed(1)} | ${quantile(times, 0.99).toFixed(1)} |`;
const medianLocal = quantile(localTimes, 0.5);
const medianMcp = quantile(mcpTimes, 0.5);
const date = new Date().toISOString().slice(0, 10);
const report = [
  `# MCP tool call overhead (${date})`,
  '',
  `Node ${process.version}, ${calls} sequential calls after ${warmup} warm-up calls, each through \`executeToolCall\`;`,
  'the MCP server is test/mcp/fixtures/stdio-fixture-server.mjs (SDK McpServer) spawned over stdio.',
  '',
  '| tool | median µs/call | p90 µs | p99 µs |',
  '|---|---|---|---|',
  row('local defineTool', localTimes),
  row('MCP over stdio', mcpTimes),
  '',
  `MCP adds ${(medianMcp - medianLocal).toFixed(0)} µs per call at the median (${(medianMcp / medianLocal).toFixed(0)}x the local call).`,
  '',
].join('\n');
console.log(report);
if (!process.argv.includes('--no-write')) {
  await writeFile(new URL(`../results/${date}-mcp-overhead.md`, import.meta.url), report);
}
