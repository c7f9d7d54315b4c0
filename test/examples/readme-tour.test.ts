/**
 * The README's tour, run for real. Each `// #region name` below is copied verbatim into README.md, and
 * test/examples/readme.test.ts fails when the two drift apart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
// The public entry points, so the README's imports are checked too.
import { Agent, type AgentInput, APIError, defineTool, RunState, SvcClient } from '../../src/index.js';

describe('README tour', () => {
  let service: Emulator;
  const saved = { key: process.env.SVC_API_KEY, url: process.env.SVC_BASE_URL };

  beforeAll(async () => {
    // Stands in for the real service: the tour's `new SvcClient()` reads these variables.
    service = await startEmulator({ port: 0 });
    process.env.SVC_API_KEY = service.apiKey;
    process.env.SVC_BASE_URL = service.baseURL;
  });
  afterAll(async () => {
    if (saved.key === undefined) delete process.env.SVC_API_KEY;
    else process.env.SVC_API_KEY = saved.key;
    if (saved.url === undefined) delete process.env.SVC_BASE_URL;
    else process.env.SVC_BASE_URL = saved.url;
    await service.close();
  });

  function setUp() {
    let weatherCalls = 0;
    // Stands in for a weather API.
    const lookupWeather = async (city: string) => {
      weatherCalls++;
      return { city, temperatureC: 14, condition: 'light rain' };
    };
    // #region define-tool
    const getWeather = defineTool({
      name: 'get_weather',
      description: 'Get the current weather in a city.',
      parameters: z.object({ city: z.string().describe('City name, e.g. Paris') }),
      execute: async ({ city }) => lookupWeather(city), // `city` is typed string
    });
    // #endregion
    // #region create-agent
    const client = new SvcClient(); // reads SVC_API_KEY and SVC_BASE_URL
    const agent = new Agent({
      client,
      model: 'svc-3.5-flash-2603',
      instructions: 'You are a concise assistant.',
      tools: [getWeather],
    });
    // #endregion
    return { client, agent, calls: () => weatherCalls };
  }

  it('should run an agent and continue the conversation', async () => {
    const { agent, calls } = setUp();
    // #region run-agent
    const result = await agent.run('What is the weather in Paris?');
    console.log(result.text); // the final answer, after the tool ran
    console.log(result.steps.length, 'model requests,', result.usage.totalTokens, 'tokens');

    // To continue, send the conversation back with the next user message.
    const next = await agent.run([...result.messages, { role: 'user', content: 'Thanks!' }]);
    // #endregion
    expect(result.text).toContain('light rain');
    expect(result.steps).toHaveLength(2);
    expect(calls()).toBe(1);
    expect(next.messages.slice(0, result.messages.length)).toEqual(result.messages);
  });

  it('should stream the events of a run', async () => {
    const { agent, calls } = setUp();
    // #region stream
    const stream = agent.stream('What is the weather in Paris?');
    for await (const event of stream) {
      if (event.type === 'reasoning-delta') process.stdout.write(`\x1b[2m${event.text}\x1b[22m`);
      if (event.type === 'text-delta') process.stdout.write(event.text);
      if (event.type === 'tool-call') console.log(`\n→ ${event.toolName}`, event.input);
      if (event.type === 'tool-result') console.log('←', event.output);
    }
    const { text, usage } = await stream.result;
    // #endregion
    expect(text).toContain('light rain');
    expect(usage.totalTokens).toBeGreaterThan(0);
    expect(calls()).toBe(1);
  });

  it('should return typed, validated structured output', async () => {
    const { client } = setUp();
    // #region structured-output
    const Sentiment = z.object({
      sentiment: z.enum(['positive', 'neutral', 'negative']),
      reason: z.string(),
    });
    const classifier = new Agent({ client, model: 'svc-3.5-flash', output: Sentiment });
    const review = await classifier.run('Review: "Setup took two minutes and it just works."');
    if (review.status === 'completed') console.log(review.output.sentiment); // typed from the schema
    // #endregion
    expect(review.status).toBe('completed');
    expect(Sentiment.parse(review.output)).toEqual(review.output);
    const request = service.requests().findLast((r) => r.path === '/v1/chat/completions')?.body;
    expect(request).toMatchObject({ response_format: { type: 'json_schema' } });
  });

  it('should pause for approval, survive a JSON round trip and resume', async () => {
    const { client } = setUp();
    const deleted: number[] = [];
    const db = { delete: async (id: number) => deleted.push(id) };
    // #region human-approval
    const deleteRecord = defineTool({
      name: 'delete_record',
      description: 'Delete a customer record.',
      parameters: z.object({ recordId: z.number().int() }),
      needsApproval: true, // or (args, ctx) => boolean, decided per call
      execute: async ({ recordId }) => {
        await db.delete(recordId);
        return { deleted: recordId };
      },
    });
    const admin = new Agent({ client, model: 'svc-3.5-flash-2603', tools: [deleteRecord] });

    let run = await admin.run('Delete record 42');
    while (run.status === 'interrupted') {
      const saved = JSON.stringify(run.state); // keep it anywhere: a database row, a job queue
      const state = RunState.fromJSON(saved, admin); // later, even in another process
      for (const call of state.interruptions) state.approve(call.toolCallId); // or state.reject(id, why)
      run = await admin.run(state);
    }
    console.log(run.text);
    // #endregion
    expect(deleted).toEqual([42]);
    expect(run.text).toContain('deleted 42');
  });

  it('should answer from a knowledge base chosen per run, citing the file', async () => {
    const { client } = setUp();
    // #region rag
    const file = await client.files.upload({
      file: 'examples/data/returns-policy.md',
      purpose: 'retrieval-text',
    });
    await client.files.waitUntilReady(file.id); // "processed" = still parsing, "success" = ready
    const store = await client.vectorStores.create({ name: 'shop_docs' });
    await client.vectorStores.files.create(store.id, { files: [{ file_id: file.id }] });

    const support = new Agent({ client, model: 'svc-3.5-flash-2603' });
    // Chosen per run (the user's or the tenant's), by name or id; the agent gets search_knowledge_base.
    const answer = await support.run('How many days do I have to return an item?', {
      knowledgeBases: ['shop_docs'],
    });
    console.log(answer.text); // ... within 30 days of delivery ... (source: returns-policy.md in shop_docs)
    for (const source of answer.sources) console.log(`[${source.title}] ${source.fileId} ${source.score}`);
    // #endregion
    expect(answer.text).toMatch(/30 days.*returns-policy\.md/);
    expect(answer.sources).toEqual([
      {
        sourceType: 'document',
        id: `${store.id}/${file.id}`,
        title: 'returns-policy.md',
        fileId: file.id,
        score: expect.any(Number),
      },
    ]);
  });

  it('should resume a failed run without running a finished tool again', async () => {
    const { agent, calls } = setUp();
    service.reset();
    service.script([
      {
        message: {
          content: '',
          tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
        },
      },
      // The next request fails on every attempt the client makes (1 + 2 retries).
      { error: { status: 503 } },
      { error: { status: 503 } },
      { error: { status: 503 } },
    ]);
    // #region errors
    let input: AgentInput = 'What is the weather in Paris?';
    for (let attempt = 1; ; attempt++) {
      try {
        const done = await agent.run(input);
        console.log(done.text);
        break;
      } catch (error) {
        // isRetryable: connection errors, timeouts (a stalled stream too), a cut or unreadable answer,
        // 408, 409, 429 and 5xx. Not: a bad request, a wrong key (even reported mid-stream), your abort.
        if (!(error instanceof APIError) || !error.isRetryable || attempt === 3) throw error;
        // error.state holds every message and tool result so far: resuming never runs a finished tool twice.
        input = error.state ?? input;
        console.warn(`attempt ${attempt} failed (${error.message}); resuming`);
      }
    }
    // #endregion
    expect(calls()).toBe(1);
    // One tool turn, three failed attempts of the next request, one resumed request.
    expect(service.requests().filter((r) => r.path === '/v1/chat/completions')).toHaveLength(5);
  });

  it('should run against an emulator with injected faults, as a user CI would', async () => {
    // #region emulator-ci
    const emu = await startEmulator({
      port: 0,
      faults: [{ status: 429, headers: { 'Retry-After': '1' }, path: '/chat/completions', times: 1 }],
    });
    const ciClient = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL });
    emu.script([{ message: { content: 'A scripted answer' } }]);

    const reply = await new Agent({ client: ciClient, model: 'svc-3.5-flash' }).run('Hi');
    console.log(reply.text); // "A scripted answer", after one 429 and an automatic retry
    console.log(emu.requests().length); // 2
    await ciClient.close();
    await emu.close();
    // #endregion
    expect(reply.text).toBe('A scripted answer');
    expect(emu.requests()).toHaveLength(2);
  });

  it('should use the plan channel', async () => {
    const { client } = setUp();
    // #region plan-channel
    const routed = await client.plan.chat.completions.create({
      model: 'svc-router-v1', // the plan channel's model, billed in credits
      messages: [{ role: 'user', content: 'Summarise our refund policy in one line.' }],
    });
    console.log(routed.choices[0]?.message.content);

    const { input_tokens } = await client.plan.messages.countTokens({
      model: 'svc-router-v1',
      messages: [{ role: 'user', content: 'How many tokens is this?' }],
    });
    // #endregion
    expect(routed.choices[0]?.message.content).toBeTruthy();
    expect(input_tokens).toBeGreaterThan(0);
    const paths = service.requests().map((r) => r.path);
    expect(paths).toContain('/svc_plan/v1/chat/completions');
    expect(paths).toContain('/svc_plan/v1/messages/count_tokens');
  });
});
