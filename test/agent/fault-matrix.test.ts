import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentInput } from '../../src/agent/agent.js';
import { Agent } from '../../src/agent/agent.js';
import type { RunState } from '../../src/agent/run-state.js';
import { SvcClient } from '../../src/api/svc-client.js';
import type { ChatMessage } from '../../src/api/types/chat.js';
import { APIError } from '../../src/core/errors.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorFault, ScriptedAnswer } from '../../src/emulator/types.js';
import { defineTool } from '../../src/tools/define-tool.js';

// Each fault hits one model request; the run is resumed from error.state (the README's loop) until done.
const faults: Array<[name: string, fault: ScriptedAnswer | EmulatorFault, streamOnly?: boolean]> = [
  ['429', { error: { status: 429, headers: { 'retry-after-ms': '1' } } }],
  ['500', { error: { status: 500 } }],
  ['503', { error: { status: 503 } }],
  ['cut after 40 bytes', { cutAfterBytes: 40 }],
  ['malformed chunk', { malformedChunk: true }],
  ['stall after 40 bytes', { stallAfterBytes: 40 }],
  ['200 that is not an event stream', { notEventStream: true }, true],
  ['key echoed in an error', { status: 500, echoKey: true }],
  ['key echoed in a stream error event', { echoKey: true }, true],
];

let emu: Emulator;
let client: SvcClient;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  // The timeout ends the stall scenarios; it must stay well above a healthy answer's time on a loaded
  // machine, or a healthy request times out too and takes the scripted answer meant for the retry.
  client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0, timeout: 1_000 });
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

const toolTurn: ScriptedAnswer = {
  message: {
    content: '',
    tool_calls: [
      { id: 'call_0', function: { name: 'lookup', arguments: '{"q":"a"}' } },
      { id: 'call_1', function: { name: 'lookup', arguments: '{"q":"b"}' } },
    ],
  },
};
const finalTurn: ScriptedAnswer = { message: { content: 'done' } };

function faulted(answer: ScriptedAnswer, fault: ScriptedAnswer | EmulatorFault): ScriptedAnswer {
  if ('error' in fault) return fault;
  return { ...(answer as { message: never }), fault: fault as EmulatorFault };
}

const totals = { scenarios: 0, toolCalls: 0, duplicated: 0, lostToolMessages: 0, keyLeaks: 0 };

describe('fault matrix: every scenario ends done, each call run once, each call answered once', () => {
  afterAll(() => {
    // The figures of the closing note.
    console.log(`fault matrix: ${JSON.stringify(totals)}`);
    expect(totals.duplicated).toBe(0);
    expect(totals.lostToolMessages).toBe(0);
    expect(totals.keyLeaks).toBe(0);
  });

  for (const stream of [false, true]) {
    for (const position of ['first request', 'after a tool turn'] as const) {
      for (const [name, fault, streamOnly] of faults) {
        if (streamOnly && !stream) continue;
        it(`${name}, ${stream ? 'streamed' : 'not streamed'}, ${position}`, async () => {
          const runs = new Map<string, number>();
          const lookup = defineTool({
            name: 'lookup',
            description: 'Looks up q.',
            parameters: z.object({ q: z.string() }),
            execute: ({ q }, ctx) => {
              runs.set(ctx.toolCallId, (runs.get(ctx.toolCallId) ?? 0) + 1);
              return `result ${q}`;
            },
          });
          emu.script(
            position === 'first request'
              ? [faulted(toolTurn, fault), toolTurn, finalTurn]
              : [toolTurn, faulted(finalTurn, fault), finalTurn],
          );
          const agent = new Agent({ client, model: 'svc-3.5-flash', tools: [lookup] });
          let input: AgentInput = 'go';
          let failures = 0;
          let messages: ChatMessage[] = [];
          for (let attempt = 1; ; attempt++) {
            try {
              const result = await (stream ? agent.stream(input).result : agent.run(input));
              expect(result.text).toBe('done');
              messages = result.messages;
              break;
            } catch (error) {
              failures++;
              if (JSON.stringify(error).includes(emu.apiKey) || String(error).includes(emu.apiKey))
                totals.keyLeaks++;
              expect(error).toBeInstanceOf(APIError);
              expect((error as APIError).isRetryable).toBe(true);
              expect(attempt).toBeLessThan(3);
              input = (error as { state: RunState }).state;
            }
          }
          expect(failures).toBe(1);
          totals.scenarios++;
          totals.toolCalls += runs.size;
          for (const count of runs.values()) if (count !== 1) totals.duplicated++;
          const callIds = messages.flatMap((m) =>
            m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [],
          );
          const answers = messages.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []));
          for (const id of callIds)
            if (answers.filter((a) => a === id).length !== 1) totals.lostToolMessages++;
          expect(runs.size).toBe(2);
          expect(answers.length).toBe(callIds.length);
        });
      }
    }
  }

  // Faults on our side: a tool that throws or times out (the run goes on), an abort mid-request or mid-tool
  // (the run stops and resumes from error.state).
  for (const stream of [false, true]) {
    for (const name of ['tool throws', 'tool times out', 'abort mid-request', 'abort mid-tool'] as const) {
      it(`${name}, ${stream ? 'streamed' : 'not streamed'}`, async () => {
        const runs = new Map<string, number>();
        const controller = new AbortController();
        const lookup = defineTool({
          name: 'lookup',
          description: 'Looks up q.',
          parameters: z.object({ q: z.string() }),
          timeoutMs: 50,
          execute: async ({ q }, ctx) => {
            runs.set(ctx.toolCallId, (runs.get(ctx.toolCallId) ?? 0) + 1);
            if (q === 'a' && name === 'tool throws') throw new Error('lookup failed');
            // A tool slower than its 50 ms timeout.
            if (q === 'a' && name === 'tool times out') await new Promise((r) => setTimeout(r, 100));
            if (q === 'a' && name === 'abort mid-tool' && runs.size === 1) {
              controller.abort();
              // Give the abort time to reach the request in flight, as a real user's would.
              await new Promise((r) => setTimeout(r, 20));
            }
            return `result ${q}`;
          },
        });
        emu.script(
          name === 'abort mid-request'
            ? [toolTurn, { message: { content: 'done' }, fault: { latencyMs: 200 } }, finalTurn]
            : [toolTurn, finalTurn],
        );
        const agent = new Agent({ client, model: 'svc-3.5-flash', tools: [lookup] });
        let input: AgentInput = 'go';
        let messages: ChatMessage[] = [];
        for (let attempt = 1; attempt <= 3; attempt++) {
          const options = attempt === 1 ? { signal: controller.signal } : {};
          if (name === 'abort mid-request' && attempt === 1) setTimeout(() => controller.abort(), 100);
          try {
            const result = await (stream ? agent.stream(input, options).result : agent.run(input, options));
            messages = result.messages;
            break;
          } catch (error) {
            if (String(error).includes(emu.apiKey)) totals.keyLeaks++;
            input = (error as { state: RunState }).state;
          }
        }
        totals.scenarios++;
        totals.toolCalls += runs.size;
        for (const count of runs.values()) if (count !== 1) totals.duplicated++;
        const callIds = messages.flatMap((m) =>
          m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [],
        );
        const answers = messages.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []));
        for (const id of callIds) if (answers.filter((a) => a === id).length !== 1) totals.lostToolMessages++;
        expect(messages.at(-1)?.content).toBe('done');
        expect(answers.length).toBe(callIds.length);
      });
    }
  }
});
