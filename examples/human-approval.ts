/**
 * Human in the loop: a refund tool needs approval. The run pauses, its state is saved as JSON (a database
 * row or a job queue in real life), a reviewer decides, and the run resumes where it stopped.
 * Run: npx tsx examples/human-approval.ts
 */
import { z } from 'zod';
import { Agent, defineTool, RunState } from '../src/index.js';
import { connect } from './support/connect.js';

const { client, close } = await connect();

const refundOrder = defineTool({
  name: 'refund_order',
  description: 'Refund a customer order.',
  parameters: z.object({
    orderId: z.number().int().describe('Order number'),
    amount: z.number().describe('Amount to refund, in euros'),
  }),
  needsApproval: true,
  execute: async ({ orderId, amount }) => ({ orderId, refunded: amount, status: 'refunded' }),
});

const agent = new Agent({ client, model: 'svc-3.5-flash-2603', tools: [refundOrder] });

/** The reviewer's policy; in an app this is a person clicking a button. */
const review = (input: { amount: number }) => input.amount <= 100;

for (const request of [
  'Refund order 1001 for 49.90 euros, it arrived broken.',
  'Refund order 1002 for 900 euros.',
]) {
  console.log(`customer: ${request}`);
  let result = await agent.run(request);
  while (result.status === 'interrupted') {
    const saved = JSON.stringify(result.state); // persist it anywhere...
    const state = RunState.fromJSON(saved, agent); // ...and load it later, even in another process
    for (const call of state.interruptions) {
      const input = call.input as { orderId: number; amount: number };
      if (review(input)) {
        console.log(`  reviewer approves ${call.toolName} ${JSON.stringify(input)}`);
        state.approve(call.toolCallId);
      } else {
        console.log(`  reviewer rejects ${call.toolName} ${JSON.stringify(input)}`);
        state.reject(call.toolCallId, 'refunds over 100 euros need a manager');
      }
    }
    result = await agent.run(state);
  }
  console.log(`agent: ${result.text}\n`);
}
await close();
