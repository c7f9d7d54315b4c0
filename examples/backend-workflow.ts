/**
 * A batch job: triage support tickets into a typed structure (structured output + a lookup tool),
 * several at a time, retrying transient failures without re-running finished tool calls.
 * Run: npx tsx examples/backend-workflow.ts
 */
import pRetry from 'p-retry';
import { z } from 'zod';
import { Agent, defineTool, type RunState } from '../src/index.js';
import { connect } from './support/connect.js';

// The client retries each failed HTTP request once; against the emulator the first four model requests
// fail with 503, so two tickets also need the job-level retry below.
const { client, close } = await connect({
  client: { maxRetries: 1 },
  emulator: { faults: [{ status: 503, path: '/chat/completions', times: 4 }] },
});

const Triage = z.object({
  category: z.enum(['billing', 'bug', 'account', 'feature_request']),
  priority: z.enum(['low', 'medium', 'high', 'urgent']),
  summary: z.string().describe('One sentence for the support dashboard'),
});
type Triage = z.infer<typeof Triage>;

const customers: Record<number, { name: string; plan: 'free' | 'pro' | 'enterprise' }> = {
  1001: { name: 'Ada', plan: 'enterprise' },
  1002: { name: 'Linus', plan: 'free' },
  1003: { name: 'Grace', plan: 'pro' },
};

let lookups = 0;
const lookupCustomer = defineTool({
  name: 'lookup_customer',
  description:
    'Look up a customer by id: name and plan (free, pro or enterprise). Enterprise issues are urgent.',
  parameters: z.object({ customerId: z.number().int().describe('The customer id, e.g. 1001') }),
  execute: async ({ customerId }) => {
    lookups++;
    return customers[customerId] ?? { error: `no customer ${customerId}` };
  },
});

const agent = new Agent({
  client,
  model: 'svc-3.5-flash',
  instructions: 'Triage the support ticket. Look the customer up first.',
  tools: [lookupCustomer],
  output: Triage,
});

const tickets = [
  { id: 'T-1', text: 'Customer 1001: we were charged twice for the March invoice.' },
  { id: 'T-2', text: 'Customer 1002: the export button crashes the app.' },
  { id: 'T-3', text: 'Customer 1003: please add dark mode.' },
  { id: 'T-4', text: 'Customer 1001: I cannot log in since the password reset.' },
];

/** Triage one ticket; a failed attempt resumes from its saved state, so finished tool calls never run twice. */
async function triage(ticket: (typeof tickets)[number]): Promise<Triage> {
  let input: string | RunState = ticket.text;
  return pRetry(
    async () => {
      try {
        const result = await agent.run(input);
        if (result.status !== 'completed') throw new Error('unexpected approval request');
        return result.output;
      } catch (error) {
        const state = (error as { state?: RunState }).state;
        if (state) input = state;
        throw error;
      }
    },
    {
      retries: 3,
      minTimeout: 100,
      shouldRetry: ({ error }) => (error as { isRetryable?: boolean }).isRetryable === true,
      onFailedAttempt: ({ error, attemptNumber }) =>
        console.error(`${ticket.id}: attempt ${attemptNumber} failed (${error.message}); retrying`),
    },
  );
}

/** Runs `fn` over `items`, at most `limit` at a time, keeping the order of the results. */
async function mapConcurrent<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const triaged = await mapConcurrent(tickets, 2, triage);
console.table(tickets.map((ticket, i) => ({ ticket: ticket.id, ...triaged[i] })));
console.log(`${tickets.length} tickets triaged; lookup_customer ran ${lookups} times`);
await close();
