import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Store } from '../../src/agent/durable/store.js';
import { SvcClient } from '../../src/api/svc-client.js';
import type { Emulator } from '../../src/emulator/types.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { eventually } from './eventually.js';
import { answer, toolTurn } from './tool-turn.js';

// Runs the inspector tests look at, made for real on the emulator and stored in a real store: a run with
// a rate-limited retry, two parallel tool calls (one started early), an approval, and a final answer; and a
// run another process took over while its tool was in flight.

export const INSPECTED_AGENT = 'inspected';

/** The tools of the inspected agent: deterministic, so a replay of its recording asks the same requests. */
export function inspectedTools(hold?: Promise<void>) {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a city up',
    parameters: z.object({ city: z.string() }),
    idempotent: true,
    execute: async ({ city }) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { city, population: city.length * 1000 };
    },
  });
  const add = defineTool({
    name: 'add',
    description: 'Adds two numbers',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => {
      await hold;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return a + b;
    },
  });
  const sendEmail = defineTool({
    name: 'send_email',
    description: 'Sends an email',
    parameters: z.object({ to: z.string() }),
    needsApproval: true,
    execute: ({ to }) => `sent to ${to}`,
  });
  return [lookup, add, sendEmail];
}

/** A client of the emulator that retries (the rate-limited attempt is retried after its `retry-after-ms`). */
export function inspectedClient(emu: Emulator): SvcClient {
  return new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 2 });
}

/** The inspected agent on `store` (`hold`: its `add` tool waits for it, to keep a run in flight). */
export function inspectedAgent(
  client: SvcClient,
  store: Store,
  hold?: Promise<void>,
  model = 'svc-3.5-flash',
): Agent {
  return new Agent({
    name: INSPECTED_AGENT,
    client,
    model,
    instructions: 'Answer with the tools.',
    tools: inspectedTools(hold),
    store,
    // Priced, so the inspector shows costs per step and per run.
    prices: { [model]: { input: 0.3, cachedInput: 0.075, output: 2.5 } },
  });
}

/**
 * The rich run: step 0 rate-limited once then two parallel calls (`lookup` starts while the model still
 * streams), step 1 a call paused for approval and approved, step 2 the answer. Answers its run id.
 */
export async function makeRichRun(
  emu: Emulator,
  client: SvcClient,
  store: Store,
  input = 'Plan a trip to Paris',
): Promise<string> {
  // The first request is rate-limited by the emulator's fault injection; the client retries it.
  emu.setFaults([{ path: '/chat/completions', status: 429, headers: { 'retry-after-ms': '20' }, times: 1 }]);
  emu.script([
    toolTurn(['call_lookup', 'lookup', '{"city":"Paris"}'], ['call_add', 'add', '{"a":2,"b":3}']),
    toolTurn(['call_email', 'send_email', '{"to":"ops@example.com"}']),
    answer('Paris has 5000 people; the email is sent.'),
  ]);
  const agent = inspectedAgent(client, store);
  const paused = await agent.run(input, { stream: true, onEvent: () => undefined });
  if (paused.status !== 'interrupted') throw new Error(`expected a pause, got ${paused.status}`);
  await new Promise((resolve) => setTimeout(resolve, 30));
  paused.state.approve('call_email');
  const done = await agent.run(paused.state, { runId: paused.runId, stream: true, onEvent: () => undefined });
  if (done.status !== 'completed') throw new Error(`expected completed, got ${done.status}`);
  return paused.runId;
}

/**
 * A run taken over: a first agent's `add` call hangs (its process "died" with the call in flight), then a
 * second agent resumes the stored run, settles the call as interrupted and finishes. Answers its id.
 */
export async function makeTakenOverRun(emu: Emulator, client: SvcClient, store: Store): Promise<string> {
  emu.script([toolTurn(['call_stuck', 'add', '{"a":1,"b":1}']), answer('Recovered after the takeover.')]);
  let release!: () => void;
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  const first = inspectedAgent(client, store, hold);
  const runId = `takeover-${Math.random().toString(36).slice(2, 10)}`;
  const abandoned = first.run('Add one and one', { runId }).catch(() => undefined);
  await eventually(async () => (await store.getRun(runId))?.inFlight?.includes('call_stuck') === true);
  const second = inspectedAgent(client, store);
  const result = await second.resume(runId);
  if (result.status !== 'completed') throw new Error(`expected completed, got ${result.status}`);
  // The first process wakes up to find the run is no longer its own (its write conflicts).
  release();
  await abandoned;
  return runId;
}
