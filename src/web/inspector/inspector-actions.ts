import { randomUUID } from 'node:crypto';
import { readJsonObject } from '../request-body.js';
import { ChatRequestError, jsonResponse } from '../web-error.js';
import { exportRunCassette } from './export-run-cassette.js';
import { forkRun } from './fork-run.js';
import { agentUnavailableReason, resolveInspectorAgent } from './inspector-agents.js';
import type { InspectorContext } from './inspector-api.js';
import { badRequest, requireRun } from './inspector-request.js';

// The inspector's two actions: fork a run from a step, export steps as a replay recording.

/** `POST runs/:id/fork` `{ step, model?, instructions? }`: answers 202 `{ runId }` once the fork is stored. */
export async function forkRoute(context: InspectorContext, id: string, request: Request): Promise<Response> {
  const body = await readJsonObject(request, context.maxBodyBytes);
  const { step, model, instructions } = body;
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 0) {
    throw badRequest('step: required, an integer >= 0 (the step to start again at)');
  }
  if (model !== undefined && (typeof model !== 'string' || model === '')) {
    throw badRequest('model: must be a non-empty string');
  }
  if (instructions !== undefined && typeof instructions !== 'string') {
    throw badRequest('instructions: must be a string');
  }
  const record = await requireRun(context.store, id);
  const runId = (context.generateId ?? randomUUID)();
  const changes = {
    step,
    ...(model !== undefined && { model }),
    ...(instructions !== undefined && { instructions }),
  };
  const started = await forkRun({
    store: context.store,
    record,
    agents: context.agents,
    changes,
    runId,
    signal: context.signal,
  });
  const done = started.done.finally(() => context.forks.delete(done));
  context.forks.add(done);
  return jsonResponse(202, { runId, forkedFrom: { runId: id, step } });
}

/** `GET runs/:id/export?from=&to=`: the steps as a replay recording, downloaded as `<runId>.json`. */
export async function exportRoute(context: InspectorContext, id: string, url: URL): Promise<Response> {
  const step = (name: string) => {
    const value = url.searchParams.get(name);
    if (value === null || value === '') return undefined;
    if (!/^\d{1,6}$/.test(value)) throw badRequest(`${name}: must be a step number (0-based)`);
    return Number(value);
  };
  const fromStep = step('from');
  const toStep = step('to');
  const record = await requireRun(context.store, id);
  const unavailable = agentUnavailableReason(context.agents, record.agentName);
  if (unavailable) throw new ChatRequestError({ status: 409, message: `export: ${unavailable}` });
  const agent = await resolveInspectorAgent(context.agents, record.agentName, {
    runId: id,
    owner: undefined,
    changes: {},
  });
  const cassette = await exportRunCassette({
    store: context.store,
    record,
    agent: agent!,
    ...(fromStep !== undefined && { fromStep }),
    ...(toStep !== undefined && { toStep }),
  });
  return jsonResponse(200, cassette, {
    'content-disposition': `attachment; filename="${id.replace(/[^\w.-]/g, '_')}.json"`,
  });
}
