// The agent-run part of the soak (scripts/soak.ts): many complete streamed agent runs at a fixed
// concurrency against a small fixed-script chat server, with the heap after GC taken at checkpoints
// where no run is in flight. The run kinds rotate: idempotent tools started while the model streams
// (the common case, half the runs), parallel input and output guardrails, an approval pause and resume,
// a sub-agent used as a tool, and a run aborted while its early-started tool runs.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { defineGuardrail } from '../src/agent/guardrails/guardrail.js';
import { SvcClient } from '../src/api/svc-client.js';
import { APIUserAbortError } from '../src/core/errors.js';
import { defineTool } from '../src/tools/define-tool.js';

/** Options of `soakAgentRuns`. */
export interface AgentRunSoakOptions {
  /** Complete runs in all. */
  runs: number;
  /** Runs in flight at once. */
  concurrency: number;
  /** The run after which the baseline heap is taken (earlier runs warm up the JIT and the pools). */
  baselineAt: number;
  /** Heap samples between the baseline and the end (for the report; the verdict uses the two ends). */
  samples?: number;
}

/** What `soakAgentRuns` measured; heap figures are `heapUsed` after a full GC, in bytes. */
export interface AgentRunSoakResult {
  runs: number;
  concurrency: number;
  ok: number;
  unexpected: number;
  seconds: number;
  runsPerSecond: number;
  /** Process CPU (user + system, the fixture server's included) per run, in ms. */
  cpuMsPerRun: number;
  /** Heap after GC at each checkpoint, keyed by the number of runs done. */
  heapAt: Record<number, number>;
  /** Heap at the end minus heap at `baselineAt`. */
  growth: number;
  gcExposed: boolean;
}

const answerText = 'Sunny in both.';
const cities = ['Paris', 'Tokyo'];

/** The SSE body of a model turn: calls of `tool` (one per city) or, with no tool, a short answer. */
function turnBody(tool: { name: string; field: string } | undefined): string {
  const events: string[] = [];
  const usage = { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 };
  const push = (delta: unknown, finish: string) =>
    events.push(
      `data: ${JSON.stringify({
        id: 'chatcmpl-soak',
        object: 'chat.completion.chunk',
        created: 1_763_776_800,
        model: 'svc-3.5-flash',
        choices: [{ index: 0, delta, finish_reason: finish }],
        usage,
      })}\n\n`,
    );
  push({ role: 'assistant', content: '' }, '');
  if (tool === undefined) {
    push({ role: '', content: answerText }, 'stop');
  } else {
    cities.forEach((city, index) => {
      const head = {
        index,
        id: `call_${index}`,
        type: 'function',
        function: { name: tool.name, arguments: '' },
      };
      push({ role: '', tool_calls: [head] }, '');
      push({ role: '', tool_calls: [{ index, function: { arguments: `{"${tool.field}":` } }] }, '');
      push({ role: '', tool_calls: [{ index, function: { arguments: `"${city}"}` } }] }, '');
    });
    push({ role: '' }, 'tool_calls');
  }
  events.push('data: [DONE]\n\n');
  return events.join('');
}

// Built once per distinct turn (a handful): the server's own CPU stays small next to the runs'.
const turnBodies = new Map<string, string>();

/** Answers from the request alone: after tool results the answer, else calls of the request's first tool. */
function answer(body: { messages: Array<{ role: string }>; tools?: ToolDefinition[] }, res: ServerResponse) {
  const first = body.tools?.[0]?.function;
  const tool =
    body.messages.at(-1)?.role === 'tool' || first === undefined
      ? undefined
      : { name: first.name, field: first.parameters.required?.[0] ?? 'input' };
  const key = tool ? `${tool.name}:${tool.field}` : '';
  let text = turnBodies.get(key);
  if (text === undefined) {
    text = turnBody(tool);
    turnBodies.set(key, text);
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(text);
}

interface ToolDefinition {
  function: { name: string; parameters: { required?: string[] } };
}

/** A chat-completions server that answers every streamed request from the request alone (no state). */
async function startChatServer(): Promise<{ baseURL: string; close: () => Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      try {
        answer(JSON.parse(Buffer.concat(parts).toString('utf8')), res);
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"bad request","type":"invalid_request_error"}}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What the soak's tools read from `ctx.context`: a hook called when one starts. */
interface SoakContext {
  onToolStart?: () => void;
}

/** The agents of the rotation, all on one client. */
function createAgents(client: SvcClient) {
  const weather = (needsApproval: boolean) =>
    defineTool({
      name: 'get_weather',
      description: 'Current weather in a city',
      parameters: z.object({ city: z.string() }),
      idempotent: true,
      needsApproval,
      execute: async ({ city }, ctx) => {
        (ctx.context as SoakContext | undefined)?.onToolStart?.();
        // A tool that reads its signal, as a fetch inside a tool would: the guard creates it.
        ctx.signal.throwIfAborted();
        await new Promise((resolve) => setImmediate(resolve));
        return { city, sky: 'sunny' };
      },
    });
  const allow = defineGuardrail({
    name: 'allow',
    execute: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return { tripwire: false };
    },
  });
  const helper = new Agent({ client, model: 'svc-3.5-flash', name: 'helper', tools: [weather(false)] });
  return {
    eager: new Agent({ client, model: 'svc-3.5-flash', tools: [weather(false)] }),
    guarded: new Agent({
      client,
      model: 'svc-3.5-flash',
      tools: [weather(false)],
      inputGuardrails: [allow],
      outputGuardrails: [allow],
    }),
    approval: new Agent({ client, model: 'svc-3.5-flash', tools: [weather(true)] }),
    parent: new Agent({
      client,
      model: 'svc-3.5-flash',
      tools: [helper.asTool({ name: 'ask_helper', description: 'Asks the weather helper.' })],
    }),
  };
}

type Agents = ReturnType<typeof createAgents>;

/** Consumes every event, as a server streaming the run to a client would; the final text. */
async function drain(stream: ReturnType<Agent['stream']>): Promise<string> {
  for await (const _event of stream) {
    // Nothing to do with the event itself.
  }
  return (await stream.result).text;
}

/** One run of kind `i % 8`; true when it ended as that kind should. */
async function runOne(i: number, agents: Agents): Promise<boolean> {
  const question = 'Weather in Paris and Tokyo?';
  switch (i % 8) {
    case 4:
      return (await drain(agents.guarded.stream(question))) === answerText;
    case 5: {
      const paused = await agents.approval.run(question, { stream: true });
      if (paused.status !== 'interrupted') return false;
      for (const call of paused.interruptions) paused.state.approve(call.toolCallId);
      return (await agents.approval.run(paused.state, { stream: true })).text === answerText;
    }
    case 6:
      return (await drain(agents.parent.stream(question))) === answerText;
    case 7: {
      // Aborted when its first tool starts, early, while the model's answer is still being read.
      const context: SoakContext = {};
      const stream = agents.eager.stream(question, { context });
      context.onToolStart = () => stream.abort(new Error('soak abort'));
      try {
        await drain(stream);
        return false;
      } catch (error) {
        return APIUserAbortError.isInstance(error);
      }
    }
    default:
      return (await drain(agents.eager.stream(question))) === answerText;
  }
}

/**
 * Runs `runs` agent runs, `concurrency` at a time, and takes the heap after GC at `baselineAt` and at
 * evenly spaced checkpoints up to the end, each with no run in flight. Without `--expose-gc` the heap
 * figures are taken without a GC and mean little.
 */
export async function soakAgentRuns(options: AgentRunSoakOptions): Promise<AgentRunSoakResult> {
  const { runs, concurrency, baselineAt, samples = 8 } = options;
  const gc = (globalThis as { gc?: () => void }).gc;
  const server = await startChatServer();
  const client = new SvcClient({ apiKey: 'soak-key', baseURL: server.baseURL, maxRetries: 0 });
  const agents = createAgents(client);
  let ok = 0;
  let unexpected = 0;
  let next = 0;
  const heapAt: Record<number, number> = {};

  const runUntil = async (end: number) => {
    const worker = async () => {
      while (next < end) {
        const i = next++;
        try {
          if (await runOne(i, agents)) ok++;
          else unexpected++;
        } catch (error) {
          unexpected++;
          if (unexpected <= 3) console.error(error);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
  const sample = async (at: number) => {
    // Two passes: the first frees what finalizers and weak maps release only after a collection.
    await new Promise((resolve) => setImmediate(resolve));
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
    gc?.();
    heapAt[at] = process.memoryUsage().heapUsed;
  };

  const started = performance.now();
  const cpu = process.cpuUsage();
  const checkpoints = [baselineAt];
  for (let k = 1; k <= samples; k++) {
    checkpoints.push(Math.round(baselineAt + ((runs - baselineAt) * k) / samples));
  }
  for (const checkpoint of checkpoints) {
    await runUntil(checkpoint);
    await sample(checkpoint);
  }
  const seconds = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  await client.close();
  await server.close();
  return {
    runs,
    concurrency,
    ok,
    unexpected,
    seconds: Number(seconds.toFixed(1)),
    runsPerSecond: Math.round(runs / seconds),
    cpuMsPerRun: Number(((user + system) / 1000 / runs).toFixed(2)),
    heapAt,
    growth: (heapAt[runs] ?? 0) - (heapAt[baselineAt] ?? 0),
    gcExposed: gc !== undefined,
  };
}
