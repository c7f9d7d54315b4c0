import { readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentEvent } from '../../src/agent/events.js';
import type { RunResult } from '../../src/agent/run-result.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { createUIMessageChunkMapper } from '../../src/web/to-ui-message-chunks.js';
import type { UIMessageChunk } from '../../src/web/ui-message-chunk.js';
import { answer } from '../helpers/tool-turn.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

const call = (id: string, name: string, args = '{}') => ({
  message: { content: '', tool_calls: [{ id, function: { name, arguments: args } }] },
});

/** A parent whose agent tool `ask_sub` runs a sub-agent with an approval-gated `danger` and a failing `boom`. */
function createAgents() {
  const danger = defineTool({
    name: 'danger',
    description: 'Does something dangerous',
    parameters: z.object({ level: z.number() }),
    needsApproval: true,
    execute: async ({ level }) => `done at level ${level}`,
  });
  const boom = defineTool({
    name: 'boom',
    description: 'Fails',
    parameters: z.object({}),
    execute: async () => {
      throw new Error('disk on fire');
    },
  });
  const sub = new Agent({ client: env.client, model: 'svc-3.5-flash', name: 'sub', tools: [danger, boom] });
  return new Agent({
    client: env.client,
    model: 'svc-3.5-flash',
    name: 'parent',
    tools: [sub.asTool({ name: 'ask_sub', description: 'Asks the sub-agent' })],
  });
}

/** The run's events and its UI message stream chunks, as one mapper turns them. */
async function runToChunks(stream: ReturnType<Agent['stream']>) {
  const map = createUIMessageChunkMapper();
  const events: AgentEvent[] = [];
  const chunks: UIMessageChunk[] = [];
  for await (const event of stream) {
    events.push(event);
    chunks.push(...map(event));
  }
  return { events, chunks, result: await stream.result };
}

/** The last message `readUIMessageStream` (the AI SDK's client side) builds of `chunks`; throws on errors. */
async function readMessage(chunks: UIMessageChunk[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const value of readUIMessageStream<UIMessage>({
    stream: stream as never,
    terminateOnError: true,
    ...(message ? { message } : {}),
  })) {
    last = value;
  }
  return last!;
}

function toolPart(message: UIMessage, toolCallId: string) {
  return message.parts.find((part) => (part as { toolCallId?: string }).toolCallId === toolCallId) as
    | (Record<string, unknown> & { type: string })
    | undefined;
}

describe('createUIMessageChunkMapper', () => {
  describe('when a sub-agent (agent.asTool) asks for approval', () => {
    async function pausedRun() {
      env.emu.script([
        call('p1', 'ask_sub', '{"input":"hi"}'),
        call('s0', 'boom'),
        call('s1', 'danger', '{"level":3}'),
      ]);
      const parent = createAgents();
      const first = await runToChunks(parent.stream('go'));
      expect(first.result.status).toBe('interrupted');
      return { parent, first, message: await readMessage(first.chunks) };
    }

    it('should announce the inner call before its approval request, so the AI SDK client can show it', async () => {
      const { first, message } = await pausedRun();
      const index = first.chunks.findIndex((chunk) => chunk.type === 'tool-approval-request');
      expect(first.chunks[index - 1]).toEqual({
        type: 'tool-input-available',
        toolCallId: 's1',
        toolName: 'danger',
        input: { level: 3 },
      });
      expect(toolPart(message, 's1')).toMatchObject({
        type: 'tool-danger',
        state: 'approval-requested',
        input: { level: 3 },
        approval: { id: 's1' },
      });
      // The sub-agent's other calls stay inside its tool call.
      expect(toolPart(message, 's0')).toBeUndefined();
      // The agent tool's call waits: a provisional output lets useChat send the approval responses.
      expect(toolPart(message, 'p1')).toMatchObject({
        type: 'tool-ask_sub',
        state: 'output-available',
        output: { awaitingApproval: ['s1'] },
      });
    });

    it('should show the approved inner call’s output in the resumed stream', async () => {
      const { parent, first, message } = await pausedRun();
      env.emu.script([answer('Sub finished.'), answer('All done.')]);
      const paused = first.result as Extract<RunResult<unknown>, { status: 'interrupted' }>;
      const resumed = await runToChunks(parent.stream(paused.state.approve('s1')));
      expect(resumed.result.status).toBe('completed');
      const next = await readMessage(resumed.chunks, message);
      expect(toolPart(next, 's1')).toMatchObject({
        type: 'tool-danger',
        state: 'output-available',
        output: 'done at level 3',
      });
      expect(toolPart(next, 'p1')).toMatchObject({ state: 'output-available', output: 'Sub finished.' });
      expect(toolPart(next, 's0')).toBeUndefined();
    });

    it('should show a rejected inner call as denied in the resumed stream', async () => {
      const { parent, first, message } = await pausedRun();
      env.emu.script([answer('Sub gave up.'), answer('Not done.')]);
      const paused = first.result as Extract<RunResult<unknown>, { status: 'interrupted' }>;
      const resumed = await runToChunks(parent.stream(paused.state.reject('s1', 'No.')));
      const next = await readMessage(resumed.chunks, message);
      expect(toolPart(next, 's1')).toMatchObject({ type: 'tool-danger', state: 'output-denied' });
      expect(toolPart(next, 'p1')).toMatchObject({ state: 'output-available', output: 'Sub gave up.' });
    });
  });

  describe('when a knowledge-base search cites files', () => {
    it('should send each source as a source-document part the AI SDK client keeps', async () => {
      const store = await env.client.vectorStores.create({ name: 'ui_office_docs', type: 'text' });
      const file = await env.client.files.upload({
        file: Buffer.from('The Lisbon office is open on Saturday from 10:00 to 14:00.'),
        filename: 'office-hours.md',
        purpose: 'retrieval-text',
      });
      await env.client.files.waitUntilReady(file.id);
      await env.client.vectorStores.files.create(store.id, { files: [{ file_id: file.id }] });
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash-2603',
        knowledgeBases: ['ui_office_docs'],
      });
      const { chunks } = await runToChunks(agent.stream('When is the Lisbon office open on Saturday?'));
      const message = await readMessage(chunks);
      expect(message.parts.filter((part) => part.type === 'source-document')).toEqual([
        {
          type: 'source-document',
          sourceId: `${store.id}/${file.id}`,
          mediaType: 'text/markdown',
          title: 'office-hours.md',
          filename: 'office-hours.md',
          providerMetadata: { svc: { fileId: file.id } },
        },
      ]);
      const text = message.parts.find((part) => part.type === 'text') as { text: string } | undefined;
      expect(text?.text).toContain('office-hours.md');
    });
  });
});
