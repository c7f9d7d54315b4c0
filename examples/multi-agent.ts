/**
 * Multi-agent support desk: a triage agent hands the conversation to billing (a local refund tool) or to
 * support (tools from an MCP server), and the run says which agent answered last.
 * Run: npx tsx examples/multi-agent.ts
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Agent, defineTool, handoff, handoffFilters } from '../src/index.js';
import { connectMcpServer } from '../src/mcp/index.js';
import { connect } from './support/connect.js';

const { client, close } = await connect();
const model = 'svc-3.5-flash-2603';

// Support answers from the team notes served by an MCP server (read-only tools only).
const notes = await connectMcpServer({
  name: 'team-notes',
  command: process.execPath,
  args: [
    '--import',
    import.meta.resolve('tsx'),
    fileURLToPath(new URL('./support/notes-mcp-server.ts', import.meta.url)),
  ],
  allow: ['search_notes'],
  stderr: 'ignore',
});

const refundPayment = defineTool({
  name: 'refund_payment',
  description: 'Refund a payment that was charged by mistake.',
  parameters: z.object({ reason: z.string().describe('Why the payment is refunded') }),
  execute: async ({ reason }) => ({ refunded: true, amount: 19.9, reason }),
});

const billing = new Agent({
  client,
  model,
  name: 'billing',
  handoffDescription: 'charges, invoices and refunds',
  instructions: 'You handle billing. Refund double charges.',
  tools: [refundPayment],
});
const support = new Agent({
  client,
  model,
  name: 'support',
  handoffDescription: 'accounts, passwords and how the product works',
  instructions: 'You solve product problems from the team notes.',
  tools: notes.tools,
});
// The specialists get the customer's words, not triage's transfer call.
const triage = new Agent({
  client,
  model,
  name: 'triage',
  instructions: 'Hand the customer to billing or support; never answer yourself.',
  handoffs: [
    handoff(billing, { inputFilter: handoffFilters.removeToolHistory }),
    handoff(support, { inputFilter: handoffFilters.removeToolHistory }),
  ],
});

try {
  for (const request of [
    'I was charged twice this month, please refund the billing error.',
    'Please check the support notes: my password reset link has expired.',
  ]) {
    console.log(`customer: ${request}`);
    const stream = triage.stream(request);
    for await (const event of stream) {
      if (event.type === 'handoff') console.log(`  ${event.from} → ${event.to}`);
      if (event.type === 'tool-call' && !event.toolName.startsWith('transfer_to_')) {
        console.log(`  ${event.toolName}(${JSON.stringify(event.input)})`);
      }
    }
    const result = await stream.result;
    console.log(`${result.lastAgent}: ${result.text}`);
    console.log(`  (${result.steps.length} model requests, ${result.usage.totalTokens} tokens)\n`);
  }
} finally {
  await notes.close();
  await close();
}
