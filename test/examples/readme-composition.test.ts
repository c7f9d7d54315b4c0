/**
 * The README's composition section (MCP, agents as tools, handoffs, guardrails, tools per step), run for
 * real against the emulator. Each `// #region name` is copied verbatim into README.md, and
 * test/examples/readme.test.ts fails when the two drift apart.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import {
  Agent,
  defineGuardrail,
  defineTool,
  GuardrailTripwireError,
  handoff,
  handoffFilters,
  SvcClient,
} from '../../src/index.js';
import { connectMcpServer } from '../../src/mcp/index.js';

const serverScript = fileURLToPath(new URL('../mcp/fixtures/stdio-fixture-server.mjs', import.meta.url));

describe('README composition', () => {
  let service: Emulator;
  let client: SvcClient;
  const model = 'svc-3.5-flash-2603';
  beforeAll(async () => {
    service = await startEmulator({ port: 0 });
    client = new SvcClient({ apiKey: service.apiKey, baseURL: service.baseURL });
  });
  beforeEach(() => service.reset());
  afterAll(async () => {
    await client.close();
    await service.close();
  });

  it('should use the tools of an MCP server', async () => {
    // #region mcp-client
    const server = await connectMcpServer({
      command: 'node',
      args: [serverScript], // any MCP server: `npx -y <package>`, `python server.py`, ...
      deny: ['add_tool'], // or allow: [...]
      needsApproval: { delete_thing: true }, // per tool; true for all; 'destructive' for all but readOnlyHint ones
      prefix: 'fx_', // names stay within the 64-character rule, or connecting fails clearly
    });
    // Or over HTTP: connectMcpServer({ url: 'http://127.0.0.1:3000/mcp' }) (falls back to legacy SSE).
    const agent = new Agent({ client, model, tools: () => server.tools }); // follows tools/list_changed
    const result = await agent.run('Please echo: hello from MCP');
    await server.close(); // ends the child process (or the HTTP session)
    // #endregion
    expect(result.steps[0]?.toolCalls[0]?.toolName).toBe('fx_echo');
    expect(result.text).toContain('hello from MCP');
  });

  it('should run an agent as a tool of another', async () => {
    // #region agent-as-tool
    const researcher = new Agent({ client, model, name: 'researcher', instructions: 'Find facts.' });
    const writer = new Agent({
      client,
      model,
      tools: [researcher.asTool({ name: 'research', description: 'Finds facts about a topic.' })],
    });
    const stream = writer.stream('Use research on otters, then write one line.');
    const seen = new Set<string>();
    for await (const event of stream) {
      if (event.type === 'sub-agent') seen.add(`${event.agent}: ${event.event.type}`); // 'researcher: text-delta', ...
    }
    const { usage } = await stream.result; // includes the researcher's tokens
    // #endregion
    expect(usage.totalTokens).toBeGreaterThan(0);
    expect(seen).toContain('researcher: finish');
  });

  it('should hand a conversation over to another agent', async () => {
    // #region handoffs
    const refund = defineTool({
      name: 'refund_payment',
      description: 'Refund a payment charged by mistake.',
      parameters: z.object({ reason: z.string() }),
      execute: async ({ reason }) => ({ refunded: true, reason }),
    });
    const billing = new Agent({
      client,
      model,
      name: 'billing',
      handoffDescription: 'charges, invoices and refunds',
      tools: [refund],
    });
    const support = new Agent({ client, model, name: 'support', handoffDescription: 'product problems' });
    const triage = new Agent({
      client,
      model,
      name: 'triage',
      // The model gets transfer_to_billing and transfer_to_support tools.
      handoffs: [handoff(billing, { inputFilter: handoffFilters.removeToolHistory }), support],
    });
    const result = await triage.run('Please refund: the billing charged me twice.');
    console.log(result.lastAgent); // 'billing'
    // #endregion
    expect(result.lastAgent).toBe('billing');
  });

  it('should check input and output with guardrails', async () => {
    // #region guardrails
    const noCardNumbers = defineGuardrail({
      name: 'no_card_numbers',
      // Runs alongside the first model request; tools wait for it. A tripwire aborts the run.
      execute: ({ text }) => ({
        tripwire: /\b\d{4}( ?\d{4}){3}\b/.test(text),
        reason: 'card number in the input',
      }),
    });
    const shortAnswer = defineGuardrail({
      name: 'short_answer',
      schema: z.string().max(2000), // a zod check of the final answer
      repair: true, // on a tripwire, tell the model and let it answer once more
    });
    const agent = new Agent({
      client,
      model,
      inputGuardrails: [noCardNumbers],
      outputGuardrails: [shortAnswer],
    });
    try {
      await agent.run('My card is 4242 4242 4242 4242, what is my balance?');
    } catch (error) {
      if (GuardrailTripwireError.isInstance(error))
        console.log(error.guardrail, error.reason, error.state.messages.length);
      else throw error;
    }
    // #endregion
    await expect(agent.run('My card is 4242 4242 4242 4242')).rejects.toMatchObject({
      guardrail: 'no_card_numbers',
    });
    await expect(agent.run('Hello there')).resolves.toMatchObject({ status: 'completed' });
  });

  it('should choose the tools per step', async () => {
    const search = defineTool({ name: 'search', description: 'Search.', execute: () => 'found it' });
    const publish = defineTool({ name: 'publish', description: 'Publish.', execute: () => 'published' });
    // #region dynamic-tools
    const agent = new Agent({
      client,
      model,
      // Asked before every model request: enable, disable or replace tools per step.
      tools: ({ step }) => (step === 0 ? [search] : [publish]),
    });
    // #endregion
    const result = await agent.run('search and publish');
    expect(result.steps[0]?.toolCalls.map((call) => call.toolName)).toEqual(['search']);
  });
});
