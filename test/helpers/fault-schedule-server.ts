import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { z } from 'zod';
import { Agent, type AgentInput } from '../../src/agent/agent.js';
import type { RunState } from '../../src/agent/run-state.js';
import { SvcClient } from '../../src/api/svc-client.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { APIError, APIUserAbortError } from '../../src/core/errors.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { createHttpTestServer, type HttpTestServer } from './create-http-test-server.js';

/** What one model request suffers. */
export type RequestFault =
  | { kind: 'none' }
  | { kind: 'status'; status: 429 | 500 | 503 }
  | { kind: 'cut'; bytes: number }
  | { kind: 'malformed' }
  | { kind: 'stall'; bytes: number }
  | { kind: 'not-event-stream' }
  | { kind: 'echo-key' };

/** One tool call the scripted model makes: its id (often reused) and how the tool behaves. */
export interface ScriptedCall {
  id: string;
  mode: 'ok' | 'throw' | 'timeout';
}

/** A random case: the model's turns, the fault of each request in order, and aborts per attempt. */
export interface FaultCase {
  stream: boolean;
  /** Tool turns before the final answer. */
  turns: ScriptedCall[][];
  faults: RequestFault[];
  /** Per attempt: abort after this many ms, or null. */
  aborts: Array<number | null>;
}

const apiKey = 'sk-fault-schedule-0123456789';
/** Idle/attempt timeout of the client, and a tool's timeout: small so a case stays fast. */
export const clientTimeoutMs = 150;
const toolTimeoutMs = 30;

const faultArb: fc.Arbitrary<RequestFault> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(429, 500, 503).map((status) => ({ kind: 'status' as const, status })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 60 }).map((bytes) => ({ kind: 'cut' as const, bytes })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'malformed' as const }) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 60 }).map((bytes) => ({ kind: 'stall' as const, bytes })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'not-event-stream' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'echo-key' as const }) },
);

/** Random cases: 0-3 tool turns of 1-3 calls with ids from a pool of two, and a fault schedule. */
export const faultCaseArb: fc.Arbitrary<FaultCase> = fc.record({
  stream: fc.boolean(),
  turns: fc.array(
    fc.array(
      fc.record({
        id: fc.constantFrom('call_0', 'call_1'),
        mode: fc.constantFrom<ScriptedCall['mode']>('ok', 'ok', 'ok', 'throw', 'timeout'),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    { maxLength: 3 },
  ),
  faults: fc.array(faultArb, { maxLength: 6 }),
  aborts: fc.array(fc.option(fc.integer({ min: 0, max: 40 }), { freq: 4 }), { maxLength: 3 }),
});

/** A scripted, stateless model server: it answers from the conversation, and applies faults by request number. */
export class FaultScheduleServer {
  server!: HttpTestServer;
  client!: SvcClient;
  #case: FaultCase | undefined;
  #requests = 0;
  /** Requests whose history broke the pairing rule (a tool_call without exactly one tool message). */
  violations: string[] = [];

  async start(): Promise<void> {
    this.server = await createHttpTestServer((_req, res, body) => this.#answer(res, body));
    this.client = new SvcClient({
      apiKey,
      baseURL: this.server.url,
      maxRetries: 0,
      timeout: clientTimeoutMs,
    });
  }

  async close(): Promise<void> {
    await this.client.close();
    await this.server.close();
  }

  /** Runs one case to the end (resuming from error.state), and answers the broken invariant, if any. */
  async run(fcase: FaultCase): Promise<string | undefined> {
    this.#case = fcase;
    this.#requests = 0;
    this.violations = [];
    const executions = new Map<number, number>();
    const act = defineTool({
      name: 'act',
      description: 'Does step n.',
      parameters: z.object({ n: z.number(), mode: z.string() }),
      timeoutMs: toolTimeoutMs,
      execute: async ({ n, mode }) => {
        executions.set(n, (executions.get(n) ?? 0) + 1);
        if (mode === 'throw') throw new Error(`step ${n} failed`);
        if (mode === 'timeout') await new Promise((resolve) => setTimeout(resolve, toolTimeoutMs * 2));
        return `step ${n} done`;
      },
    });
    const agent = new Agent({ client: this.client, model: 'svc-3.5-flash', tools: [act], maxTurns: 20 });
    const requestsPerAttempt = fcase.turns.length + 1;
    // Each request may wait a whole idle timeout, each turn a tool timeout: generous slack for a busy machine.
    const attemptBoundMs = requestsPerAttempt * (clientTimeoutMs + toolTimeoutMs * 2) + 3000;
    // One attempt per fault and abort, plus room for timeouts a loaded machine adds (each is retryable).
    const maxAttempts = fcase.faults.length + fcase.aborts.length + 6;
    let input: AgentInput = 'go';
    let messages: ChatMessage[] | undefined;
    for (let attempt = 0; attempt < maxAttempts && messages === undefined; attempt++) {
      const abortAfter = fcase.aborts[attempt];
      const controller = new AbortController();
      const timer = abortAfter == null ? undefined : setTimeout(() => controller.abort(), abortAfter);
      const started = performance.now();
      try {
        const options = { signal: controller.signal };
        const result = await (fcase.stream ? agent.stream(input, options).result : agent.run(input, options));
        messages = result.messages;
        if (result.text !== 'done') return `final text ${JSON.stringify(result.text)}`;
      } catch (error) {
        const shown = `${String(error)} ${JSON.stringify(error)} ${inspect(error, { depth: 6 })}`;
        if (shown.includes(apiKey)) return `the key leaked in ${String(error)}`;
        const expected =
          error instanceof APIUserAbortError || (error instanceof APIError && error.isRetryable);
        if (!expected) return `a non-retryable error: ${String(error)}`;
        const state = (error as { state?: RunState }).state;
        if (state === undefined) return `no error.state on ${String(error)}`;
        input = state;
      } finally {
        clearTimeout(timer);
      }
      const took = performance.now() - started;
      if (took > attemptBoundMs) return `an attempt took ${Math.round(took)} ms (bound ${attemptBoundMs} ms)`;
    }
    if (messages === undefined) return `not done after ${maxAttempts} attempts`;
    if (this.violations.length > 0) return `the server saw: ${this.violations[0]}`;
    const pairing = pairingProblem(messages);
    if (pairing) return pairing;
    for (const [n, count] of executions) if (count > 1) return `step ${n} executed ${count} times`;
    // A call answered with its result ran exactly once.
    for (const message of messages) {
      const match = message.role === 'tool' ? /^step (\d+) done$/.exec(message.content as string) : null;
      if (match && executions.get(Number(match[1])) !== 1)
        return `step ${match[1]} answered but not run once`;
    }
    return undefined;
  }

  #answer(res: ServerResponse, raw: Buffer): void {
    const fcase = this.#case!;
    const body = JSON.parse(raw.toString()) as { messages: ChatMessage[]; stream?: boolean };
    const problem = pairingProblem(body.messages, true);
    if (problem) this.violations.push(problem);
    const turn = body.messages.filter((m) => m.role === 'assistant').length;
    const fault = fcase.faults[this.#requests++] ?? { kind: 'none' };
    if (fault.kind === 'status') {
      res.writeHead(fault.status, { 'content-type': 'application/json', 'retry-after-ms': '1' });
      res.end(JSON.stringify({ error: { message: 'Emulated fault', type: 'internal_error' } }));
      return;
    }
    let offset = 0;
    for (let t = 0; t < turn && t < fcase.turns.length; t++) offset += fcase.turns[t]!.length;
    const calls = fcase.turns[turn];
    const message =
      calls === undefined
        ? { role: 'assistant', content: 'done' }
        : {
            role: 'assistant',
            content: '',
            tool_calls: calls.map((call, i) => ({
              id: call.id,
              type: 'function',
              function: { name: 'act', arguments: JSON.stringify({ n: offset + i, mode: call.mode }) },
            })),
          };
    const finish = calls === undefined ? 'stop' : 'tool_calls';
    let text: string;
    let type: string;
    if (body.stream && fault.kind !== 'not-event-stream') {
      type = 'text/event-stream';
      const chunk = (delta: unknown, finishReason: string | null) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'svc-3.5-flash', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
      const events = [
        chunk({ role: 'assistant', content: '' }, null),
        chunk(message, null),
        chunk({}, finish),
      ];
      if (fault.kind === 'malformed') events.splice(1, 0, 'data: {"choices":[{\n\n');
      if (fault.kind === 'echo-key')
        events.splice(1, 2, `data: {"error":{"message":"bad key ${apiKey}","type":"internal_error"}}\n\n`);
      text = `${events.join('')}data: [DONE]\n\n`;
    } else if (fault.kind === 'not-event-stream') {
      type = 'text/html';
      text = `<html>proxy ${apiKey}</html>`;
    } else {
      type = 'application/json';
      text = JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'svc-3.5-flash',
        choices: [{ index: 0, message, finish_reason: finish }],
      });
      if (fault.kind === 'malformed') text = text.slice(0, text.length >> 1);
      if (fault.kind === 'echo-key') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `bad key ${apiKey}`, type: 'internal_error' } }));
        return;
      }
    }
    const bytes = Buffer.from(text);
    res.writeHead(200, { 'content-type': type });
    if (fault.kind === 'cut') {
      res.write(bytes.subarray(0, fault.bytes), () => res.destroy());
    } else if (fault.kind === 'stall') {
      res.write(bytes.subarray(0, fault.bytes));
      res.on('close', () => undefined);
    } else res.end(bytes);
  }
}

/** A problem with the history: a tool_call not answered by exactly one tool message, or an answer to nothing. */
function pairingProblem(messages: ChatMessage[], allowTrailing = false): string | undefined {
  const open = new Map<string, number>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'assistant') {
      for (const [id, count] of open) if (count !== 1) return `tool_call ${id} answered ${count} times`;
      open.clear();
      for (const call of message.tool_calls ?? []) {
        if (open.has(call.id)) return `tool_call id ${call.id} twice in one message`;
        open.set(call.id, 0);
      }
    } else if (message.role === 'tool') {
      const count = open.get(message.tool_call_id);
      if (count === undefined) return `tool message for unknown id ${message.tool_call_id}`;
      open.set(message.tool_call_id, count + 1);
    }
  }
  if (allowTrailing && [...open.values()].every((count) => count === 0)) return undefined;
  for (const [id, count] of open) if (count !== 1) return `tool_call ${id} answered ${count} times`;
  return undefined;
}
