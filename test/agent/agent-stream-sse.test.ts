import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

/** Parses an SSE text into frames (comments and `retry:` kept apart). */
function parseSse(text: string) {
  const frames: Array<{ id?: string; data: string }> = [];
  let retry: number | undefined;
  let pings = 0;
  for (const block of text.split('\n\n')) {
    if (!block) continue;
    if (block.startsWith(':')) pings++;
    else if (block.startsWith('retry: ')) retry = Number(block.slice(7));
    else {
      const frame: { id?: string; data: string } = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) frame.id = line.slice(4);
        if (line.startsWith('data: ')) frame.data += line.slice(6);
      }
      frames.push(frame);
    }
  }
  return { frames, retry, pings };
}

function slowTool(started: () => void, cancelled: () => void) {
  return defineTool({
    name: 'slow_lookup',
    description: 'A slow lookup',
    parameters: z.object({}),
    execute: (_args, { signal }) =>
      new Promise((resolve, reject) => {
        started();
        const timer = setTimeout(() => resolve('late'), 10_000);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          cancelled();
          reject(signal.reason);
        });
      }),
  });
}

const toolTurn = {
  message: { content: '', tool_calls: [{ id: 'c1', function: { name: 'slow_lookup', arguments: '{}' } }] },
};

describe('AgentStream.toResponse', () => {
  describe('when a run completes', () => {
    it('should stream every event as JSON with ids from 0, a retry line, and the SSE headers', async () => {
      env.emu.script([{ message: { content: 'Hello web' } }]);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash' });
      const response = agent.stream('hi').toResponse({ retryMs: 2500 });
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(response.headers.get('cache-control')).toContain('no-cache');
      const { frames, retry } = parseSse(await response.text());
      expect(retry).toBe(2500);
      expect(frames.map((frame) => frame.id)).toEqual(frames.map((_, i) => String(i)));
      const events = frames.map((frame) => JSON.parse(frame.data));
      expect(events[0]).toEqual({ type: 'start' });
      expect(events.at(-1).type).toBe('finish');
      expect(
        events
          .filter((e) => e.type === 'text-delta')
          .map((e) => e.text)
          .join(''),
      ).toBe('Hello web');
    });
  });

  describe('when the stream is silent longer than heartbeatMs', () => {
    it('should send ping comments', async () => {
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const tool = defineTool({
        name: 'slow_lookup',
        description: 'A slow lookup',
        parameters: z.object({}),
        execute: async () => {
          await gate;
          return 'done';
        },
      });
      env.emu.script([toolTurn, { message: { content: 'ok' } }]);
      const agent = new Agent({ client: env.client, model: 'svc-3.5-flash', tools: [tool] });
      const response = agent.stream('go').toResponse({ heartbeatMs: 20 });
      // The tool finishes only once two pings arrived: however slow the machine, the silence is long enough.
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        text += read.value;
        if (parseSse(text).pings >= 2) release();
      }
      const { pings, frames } = parseSse(text);
      expect(pings).toBeGreaterThanOrEqual(2);
      expect(JSON.parse(frames.at(-1)?.data ?? '{}').type).toBe('finish');
    });
  });

  describe('when the client cancels the body while a tool runs', () => {
    it('should abort the run and cancel the tool', async () => {
      let cancelled = false;
      let onStart: () => void = () => {};
      const started = new Promise<void>((resolve) => {
        onStart = resolve;
      });
      env.emu.script([toolTurn]);
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        tools: [slowTool(onStart, () => (cancelled = true))],
      });
      const stream = agent.stream('go');
      const reader = stream.toResponse().body!.getReader();
      await reader.read();
      await started;
      await reader.cancel();
      await expect(stream.result).rejects.toThrow();
      expect(cancelled).toBe(true);
    });
  });
});

describe('AgentStream.pipeTo', () => {
  describe('when piped into a Node ServerResponse', () => {
    it('should stream the events, and abort the run when the client disconnects', async () => {
      let cancelled = false;
      let onStart: () => void = () => {};
      const started = new Promise<void>((resolve) => {
        onStart = resolve;
      });
      const agent = new Agent({
        client: env.client,
        model: 'svc-3.5-flash',
        tools: [slowTool(onStart, () => (cancelled = true))],
      });
      let last: ReturnType<Agent['stream']> | undefined;
      const server = createServer((req, res) => {
        last = agent.stream(req.url === '/tool' ? 'go' : 'hi');
        void last.pipeTo(res);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        env.emu.script([{ message: { content: 'Piped' } }]);
        const response = await fetch(`${base}/text`);
        expect(response.headers.get('content-type')).toContain('text/event-stream');
        const events = parseSse(await response.text()).frames.map((frame) => JSON.parse(frame.data));
        expect(events.at(-1).type).toBe('finish');

        env.emu.script([toolTurn]);
        const controller = new AbortController();
        const streamed = await fetch(`${base}/tool`, { signal: controller.signal });
        await started;
        controller.abort();
        await streamed.body?.cancel().catch(() => {});
        await expect(last!.result).rejects.toThrow();
        expect(cancelled).toBe(true);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});
