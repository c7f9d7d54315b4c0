/**
 * Tools from an MCP server: spawn a server over stdio, hand its tools to an agent, and let destructive
 * tools wait for a human. The same `connectMcpServer` takes `{ url }` for Streamable HTTP (or legacy SSE).
 * Run: npx tsx examples/mcp-tools.ts
 */
import { fileURLToPath } from 'node:url';
import { Agent } from '../src/index.js';
import { connectMcpServer } from '../src/mcp/index.js';
import { connect } from './support/connect.js';

const { client, close } = await connect();

const notes = await connectMcpServer({
  name: 'team-notes',
  command: process.execPath,
  args: [
    '--import',
    import.meta.resolve('tsx'),
    fileURLToPath(new URL('./support/notes-mcp-server.ts', import.meta.url)),
  ],
  // Tools the server does not mark read-only (erase_memo) need a human's approval.
  needsApproval: 'destructive',
  stderr: 'ignore',
});
try {
  console.log(
    `MCP tools: ${notes.tools.map((tool) => `${tool.name}${tool.needsApproval ? ' (approval)' : ''}`).join(', ')}`,
  );

  const agent = new Agent({
    client,
    model: 'svc-3.5-flash-2603',
    instructions: 'Answer from the team notes; quote the note id.',
    tools: notes.tools,
  });
  const stream = agent.stream('Search the notes about refunds: how long can customers wait?');
  for await (const event of stream) {
    if (event.type === 'tool-call') console.log(`→ ${event.toolName}(${JSON.stringify(event.input)})`);
    if (event.type === 'tool-result') console.log(`← ${String(event.output).split('\n')[0]}`);
  }
  console.log(`agent: ${(await stream.result).text}`);

  const erase = await agent.run('Erase memo n3, it is outdated.');
  console.log(
    `erase_memo waits for approval: ${erase.interruptions.map((call) => call.toolName).join(', ')}`,
  );
  const state = erase.state.reject(erase.interruptions[0]!.toolCallId, 'notes are kept for audits');
  console.log(`agent: ${(await agent.run(state)).text}`);
} finally {
  await notes.close();
  await close();
}
