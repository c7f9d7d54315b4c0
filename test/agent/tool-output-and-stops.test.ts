import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { RunState } from '../../src/agent/run-state.js';
import type { ChatMessage, ToolMessage } from '../../src/api/types/chat.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolCallLedger } from '../../src/tools/tool-call-ledger.js';
import { toolTurn } from '../helpers/tool-turn.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

function toolMessages(messages: ChatMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => m.role === 'tool');
}

function tool(
  name: string,
  execute: () => unknown,
  extra: { maxOutputChars?: number; idempotent?: boolean } = {},
) {
  return defineTool({ name, description: `Test tool ${name}`, parameters: z.object({}), execute, ...extra });
}

describe('tool output too large or not showable to the model', () => {
  it('should cap a huge result at 100,000 characters with a marker, and keep it out of the saved state', async () => {
    // Words, not one repeated letter: the 100,000 characters kept must still fit the model's context window,
    // which the emulator enforces (one letter repeated counts about one token per two characters there).
    const huge = 'word '.repeat(4_000_000);
    env.emu.script([toolTurn(['c1', 'dump']), { message: { content: 'ok' } }]);
    const agent = new Agent({
      client: env.client,
      model: 'svc-3.5-flash',
      tools: [tool('dump', () => huge)],
    });
    const result = await agent.run('go');
    const [message] = toolMessages(result.messages);
    expect(message!.content.length).toBeLessThan(100_200);
    expect(message!.content).toContain('[truncated: 19,900,000 of 20,000,000 characters cut');
    expect(JSON.stringify(result.state).length).toBeLessThan(1_000_000);
  });

  it("should apply the agent's maxToolOutputChars, and a tool's own maxOutputChars over it", async () => {
    env.emu.script([toolTurn(['c1', 'wide'], ['c2', 'narrow']), { message: { content: 'ok' } }]);
    const agent = new Agent({
      client: env.client,
      model: 'svc-3.5-flash',
      maxToolOutputChars: 1000,
      tools: [
        tool('wide', () => 'w'.repeat(5000)),
        tool('narrow', () => 'n'.repeat(5000), { maxOutputChars: 50 }),
      ],
    });
    const result = await agent.run('go');
    const [wide, narrow] = toolMessages(result.messages);
    expect(wide!.content).toMatch(/^w{1000}\n\[truncated: 4,000 of 5,000/);
    expect(narrow!.content).toMatch(/^n{50}\n\[truncated: 4,950 of 5,000/);
  });

  it('should send a Map faithfully and refuse a returned function with a clear tool error', async () => {
    env.emu.script([toolTurn(['c1', 'map'], ['c2', 'fn']), { message: { content: 'ok' } }]);
    const agent = new Agent({
      client: env.client,
      model: 'svc-3.5-flash',
      tools: [tool('map', () => new Map([['Paris', 21]])), tool('fn', () => () => 'source code')],
    });
    const result = await agent.run('go');
    const [map, fn] = toolMessages(result.messages);
    expect(map!.content).toBe('{"Paris":21}');
    expect(fn!.content).toMatch(/fn.*returned a function at output/);
    expect(fn!.content).not.toContain('source code');
    expect(result.steps[0]!.toolResults[1]!.status).toBe('error');
  });
});

describe('a tool stopped while it runs', () => {
  for (const idempotent of [false, true]) {
    it(`should tell the model it may have taken effect (idempotent: ${idempotent})`, async () => {
      let sideEffects = 0;
      let markStarted!: () => void;
      const started = new Promise<void>((resolve) => {
        markStarted = resolve;
      });
      // Ignores its signal and finishes its side effect after the abort.
      const pay = tool(
        'pay',
        async () => {
          markStarted();
          // A tool still running when the test aborts the run.
          await new Promise((resolve) => setTimeout(resolve, 100));
          sideEffects += 1;
          return 'paid';
        },
        { idempotent },
      );
      env.emu.script([toolTurn(['c1', 'pay'])]);
      const controller = new AbortController();
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [pay] });
      const running = agent.run('go', { signal: controller.signal }).catch((e: unknown) => e);
      await started;
      controller.abort();
      const error = (await running) as { state: RunState };
      // Waiting for nothing to happen: a tool that ignored the abort must not write into the state afterwards.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(sideEffects).toBe(1);
      const [message] = toolMessages(error.state.messages);
      expect(message!.content).not.toMatch(/cancelled/);
      expect(message!.content).toContain('may have taken effect');
      expect(message!.content).toContain(
        idempotent ? 'running it again is safe' : 'check before running it again',
      );
    });
  }

  it('should tell the model a timed-out call may have taken effect', async () => {
    env.emu.script([toolTurn(['c1', 'slow']), { message: { content: 'ok' } }]);
    const slow = defineTool({
      name: 'slow',
      description: 'slow',
      parameters: z.object({}),
      timeoutMs: 20,
      execute: () => new Promise((resolve) => setTimeout(() => resolve('late'), 200)),
    });
    const result = await new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [slow] }).run('go');
    expect(toolMessages(result.messages)[0]!.content).toContain('may have taken effect');
  });

  it('should forget a stopped idempotent call in the ledger, so a resumed run may run it again', async () => {
    const ledger = new ToolCallLedger();
    const stopped = {
      toolCallId: 'c1',
      toolName: 'pay',
      input: {},
      status: 'aborted' as const,
      output: undefined,
      content: 'stopped',
      executed: true,
    };
    await ledger.run('c1', async () => stopped, true);
    expect(ledger.has('c1')).toBe(false);
    await ledger.run('c2', async () => ({ ...stopped, toolCallId: 'c2' }), false);
    expect(ledger.has('c2')).toBe(true);
  });
});
