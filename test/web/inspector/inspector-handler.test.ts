import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import type { Store } from '../../../src/agent/durable/store.js';
import { RunState } from '../../../src/agent/run-state.js';
import { SvcClient } from '../../../src/api/svc-client.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { Emulator } from '../../../src/emulator/types.js';
import { memoryStore } from '../../../src/stores/memory-store.js';
import { recordReplay } from '../../../src/testing/record-replay.js';
import {
  createInspectorHandler,
  type InspectorHandler,
} from '../../../src/web/inspector/create-inspector-handler.js';
import type { ModelLane, RunTimeline, ToolLane } from '../../../src/web/inspector/run-timeline.js';
import { eventually } from '../../helpers/eventually.js';
import {
  INSPECTED_AGENT,
  inspectedAgent,
  inspectedClient,
  inspectedTools,
  makeRichRun,
  makeTakenOverRun,
} from '../../helpers/inspector-runs.js';
import { leaksKey } from '../../helpers/leaks-key.js';

const BASE = 'http://127.0.0.1/inspector';

describe('createInspectorHandler', () => {
  let emu: Emulator;
  let client: SvcClient;
  let store: Store;
  let handler: InspectorHandler;
  let richRunId: string;
  let takenOverId: string;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    client = inspectedClient(emu);
  });
  afterAll(async () => {
    await client.close();
    await emu.close();
  });
  beforeEach(async () => {
    emu.reset();
    store = memoryStore();
    richRunId = await makeRichRun(emu, client, store);
    takenOverId = await makeTakenOverRun(emu, client, store);
    handler = createInspectorHandler({
      store,
      agents: { [INSPECTED_AGENT]: inspectedAgent(client, store) },
    });
  });
  afterEach(async () => {
    await handler.close();
    await store.close?.();
  });

  const get = async (path: string, init?: RequestInit) => {
    const response = await handler.fetch(new Request(`${BASE}${path}`, init));
    // biome-ignore lint/suspicious/noExplicitAny: the answers' JSON, read field by field by the assertions.
    const body = (await response.json().catch(() => undefined)) as any;
    return { status: response.status, body, response };
  };

  describe('when listing runs', () => {
    it('should answer summaries with live counts, filtered by status and sorted by tokens', async () => {
      const all = await get('/api/runs');
      expect(all.status).toBe(200);
      expect(all.body.runs.map((run: { id: string }) => run.id).sort()).toEqual(
        [richRunId, takenOverId].sort(),
      );
      expect(all.body.counts.completed).toBe(2);

      const rich = all.body.runs.find((run: { id: string }) => run.id === richRunId);
      const taken = all.body.runs.find((run: { id: string }) => run.id === takenOverId);
      const ascending = await get('/api/runs?sort=tokens&order=asc');
      const expected = [rich, taken].sort((a, b) => a.tokens.total - b.tokens.total).map((run) => run.id);
      expect(ascending.body.runs.map((run: { id: string }) => run.id)).toEqual(expected);

      const failed = await get('/api/runs?status=failed');
      expect(failed.body.runs).toEqual([]);
      expect(failed.body.counts.completed).toBe(2);

      const searched = await get(`/api/runs?q=${encodeURIComponent('trip to paris')}`);
      expect(searched.body.runs.map((run: { id: string }) => run.id)).toEqual([richRunId]);
    });
  });

  describe('when the list is paged', () => {
    it('should answer one run per page with a cursor to the next, and no cursor on the last', async () => {
      const first = await get('/api/runs?limit=1&sort=createdAt&order=asc');
      expect(first.body.runs).toHaveLength(1);
      const second = await get(
        `/api/runs?limit=1&sort=createdAt&order=asc&cursor=${encodeURIComponent(first.body.nextCursor)}`,
      );
      expect(second.body.runs).toHaveLength(1);
      expect(second.body.nextCursor).toBeUndefined();
      expect([first.body.runs[0].id, second.body.runs[0].id].sort()).toEqual([richRunId, takenOverId].sort());
    });
  });

  describe('when a session is read', () => {
    it("should answer the session's runs in order with their tokens and the totals", async () => {
      emu.script([{ message: { content: 'First.' } }, { message: { content: 'Second.' } }]);
      const agent = inspectedAgent(client, store);
      const one = await agent.run('One', { session: 'support-42' });
      const two = await agent.run('Two', { session: 'support-42' });
      const { status, body } = await get('/api/sessions/support-42');
      expect(status).toBe(200);
      expect(body.runs.map((run: { id: string }) => run.id)).toEqual([one.runId, two.runId]);
      expect(body.totals).toEqual({
        runs: 2,
        tokens: one.usage.totalTokens + two.usage.totalTokens,
        costUsd: one.usage.cost! + two.usage.cost!,
      });
      expect(body.totals.costUsd).toBeGreaterThan(0);
    });
  });

  describe('when the raw events are read', () => {
    it('should answer the stored log after the given id', async () => {
      await store.appendRunEvents!(richRunId, 0, ['{"type":"start"}', '{"type":"finish"}']);
      const { body } = await get(`/api/runs/${richRunId}/events?after=0`);
      expect(body).toEqual({ kept: true, events: [{ id: 1, data: '{"type":"finish"}' }] });
    });
  });

  describe('when one run is read', () => {
    it('should show a lane per model request and per tool call, with the retry, the eager start and the approval wait', async () => {
      const { status, body } = await get(`/api/runs/${richRunId}`);
      expect(status).toBe(200);
      const timeline = body.timeline as RunTimeline;
      expect(timeline.timed).toBe(true);
      const models = timeline.lanes.filter((lane): lane is ModelLane => lane.kind === 'model');
      const tools = timeline.lanes.filter((lane): lane is ToolLane => lane.kind === 'tool');
      expect(models.map((lane) => lane.step)).toEqual([0, 1, 2]);
      expect(models[0]!.retries).toEqual([
        expect.objectContaining({ attempt: 2, status: 429, rateLimited: true, model: 'svc-3.5-flash' }),
      ]);
      for (const lane of models) {
        expect(lane.firstTokenAt).toBeGreaterThanOrEqual(lane.requestedAt);
        expect(lane.doneAt).toBeGreaterThanOrEqual(lane.firstTokenAt!);
      }
      const lookup = tools.find((lane) => lane.toolName === 'lookup')!;
      const add = tools.find((lane) => lane.toolName === 'add')!;
      // Parallel: both ran in step 0 and their times overlap.
      expect([lookup.step, add.step]).toEqual([0, 0]);
      expect(lookup.startedAt!).toBeLessThan(add.finishedAt!);
      expect(add.startedAt!).toBeLessThan(lookup.finishedAt!);
      expect(lookup.eager).toBe(true);
      expect(lookup.startedAt!).toBeLessThanOrEqual(models[0]!.doneAt);
      const email = tools.find((lane) => lane.toolName === 'send_email')!;
      expect(email.approval).toEqual(
        expect.objectContaining({ decision: 'approved', requestedAt: expect.any(Number) }),
      );
      expect(email.approval!.decidedAt!).toBeGreaterThanOrEqual(email.approval!.requestedAt);
      expect(email.startedAt!).toBeGreaterThanOrEqual(email.approval!.decidedAt!);
      expect(body.checkpoints.map((checkpoint: { step: number }) => checkpoint.step)).toEqual([0, 1, 2]);
      expect(body.checkpoints[2].diff).toContainEqual(
        expect.objectContaining({ kind: 'added', path: expect.stringMatching(/^messages\[\d+\]$/) }),
      );
      expect(body.actions.fork).toEqual({ enabled: true, canChange: false });
    });

    it('should mark the takeover with the call that was in flight', async () => {
      const { body } = await get(`/api/runs/${takenOverId}`);
      const resumes = (body.timeline as RunTimeline).resumes;
      expect(resumes).toEqual([expect.objectContaining({ from: 'running', inFlight: ['call_stuck'] })]);
      const stuck = (body.timeline as RunTimeline).lanes.find(
        (lane): lane is ToolLane => lane.kind === 'tool' && lane.toolCallId === 'call_stuck',
      );
      expect(stuck?.status).toBe('aborted');
    });

    it('should read a state written before times were kept as a run without lanes', async () => {
      const record = (await store.getRun(richRunId))!;
      const old = JSON.parse(JSON.stringify(record.state)) as { steps: Array<Record<string, unknown>> };
      for (const step of old.steps) {
        delete step.timing;
        for (const result of step.toolResults as Array<Record<string, unknown>>) {
          delete result.startedAt;
          delete result.finishedAt;
          delete result.eager;
          delete result.approval;
        }
      }
      const { id: _id, version: _v, createdAt: _c, updatedAt: _u, writeId: _w, ...rest } = record;
      await store.createRun({ ...rest, id: 'old-run', state: old });
      const { body } = await get('/api/runs/old-run');
      expect(body.timeline.timed).toBe(false);
      expect(
        body.timeline.lanes.every((lane: ToolLane) => lane.kind === 'tool' && lane.startedAt === undefined),
      ).toBe(true);
      expect(RunState.fromJSON(old as never, inspectedAgent(client, store)).steps).toHaveLength(3);
    });
  });

  describe('when a stored state cannot be read', () => {
    it('should still show the run as stored, saying why', async () => {
      await store.createRun({
        id: 'damaged',
        agentName: INSPECTED_AGENT,
        status: 'failed',
        state: { $schemaVersion: 99, messages: [{ role: 'user', content: 'Hi' }], steps: [] },
        interruptions: [],
      });
      const { status, body } = await get('/api/runs/damaged');
      expect(status).toBe(200);
      expect(body.stateError).toMatch(/\$schemaVersion 99 is not supported/);
      expect(body.messages).toEqual([{ role: 'user', content: 'Hi' }]);
    });
  });

  describe('when a run is forked', () => {
    it('should start a new run from the state before the step, recorded with forkedFrom and linked both ways', async () => {
      const forked = await get(`/api/runs/${richRunId}/fork`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ step: 2 }),
      });
      expect(forked.status).toBe(202);
      const forkId = forked.body.runId as string;
      await eventually(async () => (await store.getRun(forkId))?.status === 'completed');
      const fork = (await store.getRun(forkId))!;
      expect(fork.forkedFrom).toEqual({ runId: richRunId, step: 2 });
      const steps = (fork.state as { steps: unknown[] }).steps;
      expect(steps).toHaveLength(3);
      const parent = await get(`/api/runs/${richRunId}`);
      expect(parent.body.forks).toEqual([{ runId: forkId, step: 2 }]);
      const child = await get(`/api/runs/${forkId}`);
      expect(child.body.record.forkedFrom).toEqual({ runId: richRunId, step: 2 });
    });

    it('should refuse a changed model when the agent is not a factory, and build one with it when it is', async () => {
      const refused = await get(`/api/runs/${richRunId}/fork`, {
        method: 'POST',
        body: JSON.stringify({ step: 2, model: 'svc-3.7-flash' }),
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(/^model, instructions: changing them needs/);

      const seen: Array<{ model?: string; instructions?: string }> = [];
      const factory = createInspectorHandler({
        store,
        agents: {
          [INSPECTED_AGENT]: ({ changes }) => {
            seen.push(changes);
            return inspectedAgent(client, store, undefined, changes.model ?? 'svc-3.5-flash');
          },
        },
      });
      const forked = await factory.fetch(
        new Request(`${BASE}/api/runs/${richRunId}/fork`, {
          method: 'POST',
          body: JSON.stringify({ step: 2, model: 'svc-3.7-flash' }),
        }),
      );
      expect(forked.status).toBe(202);
      const { runId } = (await forked.json()) as { runId: string };
      await eventually(async () => (await store.getRun(runId))?.status === 'completed');
      expect(seen).toEqual([{ model: 'svc-3.7-flash' }]);
      const lastRequest = emu
        .requests()
        .filter((request) => request.path.endsWith('/chat/completions'))
        .at(-1);
      expect((lastRequest!.body as { model: string }).model).toBe('svc-3.7-flash');
      await factory.close();
    });

    it('should say why a run of an agent it was not given cannot be forked or exported', async () => {
      const bare = createInspectorHandler({ store });
      const detail = (await (await bare.fetch(new Request(`${BASE}/api/runs/${richRunId}`))).json()) as {
        actions: { fork: unknown };
      };
      expect(detail.actions.fork).toEqual({
        enabled: false,
        reason: expect.stringContaining(`no agent "${INSPECTED_AGENT}"`),
      });
      const refused = await bare.fetch(
        new Request(`${BASE}/api/runs/${richRunId}/fork`, { method: 'POST', body: '{"step":1}' }),
      );
      expect(refused.status).toBe(409);
      expect((await bare.fetch(new Request(`${BASE}/api/runs/${richRunId}/export`))).status).toBe(409);
    });
  });

  describe('when a run is exported', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-inspector-export-'));
    });
    afterEach(() => rm(dir, { recursive: true, force: true }));

    it('should write a recording that replays the run offline, approval included', async () => {
      const exported = await get(`/api/runs/${richRunId}/export`);
      expect(exported.status).toBe(200);
      expect(exported.response.headers.get('content-disposition')).toContain(`${richRunId}.json`);
      expect(exported.body.interactions).toHaveLength(3);
      await writeFile(join(dir, 'incident.json'), JSON.stringify(exported.body));

      const recording = await recordReplay({ dir, name: 'incident', mode: 'replay' });
      const replayClient = new SvcClient({
        ...recording.clientOptions,
        baseURL: 'http://127.0.0.1:9',
        maxRetries: 0,
      });
      const requestsBefore = emu.requests().length;
      const agent = new Agent({
        name: INSPECTED_AGENT,
        client: replayClient,
        model: 'svc-3.5-flash',
        instructions: 'Answer with the tools.',
        tools: inspectedTools(),
      });
      const start = RunState.fromJSON(exported.body.run.start, agent);
      const paused = await agent.run(start);
      expect(paused.status).toBe('interrupted');
      paused.state.approve('call_email');
      const done = await agent.run(paused.state);
      expect(done.text).toBe('Paris has 5000 people; the email is sent.');
      expect(emu.requests().length).toBe(requestsBefore);
      await recording.close();
      await replayClient.close();
    });

    it('should export a step range that replays from the state before its first step', async () => {
      const exported = await get(`/api/runs/${richRunId}/export?from=2&to=2`);
      expect(exported.body.interactions).toHaveLength(1);
      await writeFile(join(dir, 'last-step.json'), JSON.stringify(exported.body));
      const recording = await recordReplay({ dir, name: 'last-step', mode: 'replay' });
      const replayClient = new SvcClient({
        ...recording.clientOptions,
        baseURL: 'http://127.0.0.1:9',
        maxRetries: 0,
      });
      const agent = new Agent({
        name: INSPECTED_AGENT,
        client: replayClient,
        model: 'svc-3.5-flash',
        instructions: 'Answer with the tools.',
        tools: inspectedTools(),
      });
      const done = await agent.run(RunState.fromJSON(exported.body.run.start, agent));
      expect(done.text).toBe('Paris has 5000 people; the email is sent.');
      await recording.close();
      await replayClient.close();
    });
  });

  describe('when a run failed with the key echoed in the service error', () => {
    it('should never show the key in any answer', async () => {
      const key = 'sk-live-Zq8x!R2/v9+Kp=3Tt7Wm';
      const keyed = await startEmulator({ port: 0, apiKey: key });
      const keyedClient = new SvcClient({ apiKey: key, baseURL: keyed.baseURL, maxRetries: 1 });
      try {
        keyed.setFaults([{ path: '/chat/completions', status: 500, echoKey: true }]);
        const agent = inspectedAgent(keyedClient, store);
        const failed = (await agent.run('Hi', { runId: 'keyed' }).catch((error: unknown) => error)) as Error;
        expect(failed).toBeInstanceOf(Error);
        const answers = await Promise.all(
          ['/api/runs', '/api/runs/keyed', '/api/runs/keyed/events', '/api/runs/keyed/export'].map(
            async (path) => (await handler.fetch(new Request(`${BASE}${path}`))).text(),
          ),
        );
        expect(answers[1]).toContain('"status":"failed"');
        // The failed request is a lane of its own, with the (masked) error.
        expect(answers[1]).toMatch(/"finishReason":null,"error":"InternalServerError: 500/);
        for (const text of answers) expect(leaksKey(text, key)).toBe(false);
      } finally {
        await keyedClient.close();
        await keyed.close();
      }
    });
  });

  describe('when authorize refuses', () => {
    it('should answer 401 or the app’s 403 and read nothing from the store', async () => {
      let reads = 0;
      const counted = new Proxy(store, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            reads += 1;
            return value.apply(target, args);
          };
        },
      });
      const closed = createInspectorHandler({ store: counted, authorize: () => false });
      const forbidden = createInspectorHandler({
        store: counted,
        authorize: () => new Response('admins only', { status: 403 }),
      });
      for (const path of ['/', '/api/runs', `/api/runs/${richRunId}`, `/api/runs/${richRunId}/export`]) {
        expect((await closed.fetch(new Request(`${BASE}${path}`))).status).toBe(401);
        expect((await forbidden.fetch(new Request(`${BASE}${path}`))).status).toBe(403);
      }
      const fork = await closed.fetch(
        new Request(`${BASE}/api/runs/${richRunId}/fork`, { method: 'POST', body: '{"step":0}' }),
      );
      expect(fork.status).toBe(401);
      expect(reads).toBe(0);
      const admitted = createInspectorHandler({ store: counted, authorize: () => ({ userId: 'admin' }) });
      expect((await admitted.fetch(new Request(`${BASE}/api/runs`))).status).toBe(200);
      expect(reads).toBeGreaterThan(0);
    });
  });

  describe('when the input is garbage', () => {
    it.each([
      ['/api/runs?status=bogus', 400, /^status: must be one of/],
      ['/api/runs?limit=abc', 400, /limit/],
      ['/api/runs?limit=0', 400, /limit/],
      ['/api/runs?sort=name', 400, /sort/],
      ['/api/runs?from=yesterday', 400, /^from: must be/],
      ['/api/runs?cursor=nope', 400, /cursor/],
      ['/api/runs/%3Cscript%3E', 400, /^runId: must be/],
      ['/api/runs/no-such-run', 404, /^runId: no run/],
      ['/api/runs/RUN/events?after=x', 400, /^after:/],
      ['/api/runs/RUN/export?from=a', 400, /^from:/],
      ['/api/runs/RUN/export?from=2&to=1', 400, /^from, to:/],
      ['/api/nothing', 404, /no such route/],
    ])('should answer GET %s with %i naming the field', async (path, status, message) => {
      const { status: got, body } = await get(path.replace('RUN', richRunId));
      expect(got).toBe(status);
      expect(body.error.message).toMatch(message);
    });

    it.each([
      ['not json', 400],
      ['{"step":"two"}', 400],
      ['{"step":-1}', 400],
      ['{"step":99}', 400],
      ['{"step":1,"model":""}', 400],
      ['{"step":1,"instructions":7}', 400],
    ])('should refuse the fork body %s with %i', async (body, status) => {
      const answer = await get(`/api/runs/${richRunId}/fork`, { method: 'POST', body });
      expect(answer.status).toBe(status);
      expect(answer.body.error.message).toMatch(/step|model|instructions|JSON|json/);
    });

    it('should refuse a fork asked from another origin', async () => {
      const answer = await get(`/api/runs/${richRunId}/fork`, {
        method: 'POST',
        headers: { origin: 'https://evil.example' },
        body: '{"step":1}',
      });
      expect(answer.status).toBe(403);
    });
  });

  describe('when the page is asked for', () => {
    it('should serve it with its own script only, under a policy with no inline script', async () => {
      const page = await handler.fetch(new Request(`${BASE}/`));
      const html = await page.text();
      const policy = page.headers.get('content-security-policy')!;
      expect(policy).toContain("script-src 'self'");
      expect(policy).not.toContain('unsafe-inline');
      expect(html).toContain('<script type="module" src="inspector.js"></script>');
      expect(html.match(/<script/g)).toHaveLength(1);
      const script = await handler.fetch(new Request(`${BASE}/inspector.js`));
      expect(script.headers.get('content-type')).toContain('javascript');
      expect((await script.text()).length).toBeGreaterThan(1000);
      const redirect = await handler.fetch(new Request(BASE));
      expect(redirect.status).toBe(308);
      expect(redirect.headers.get('location')).toBe('/inspector/');
    });
  });
});
