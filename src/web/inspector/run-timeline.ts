import type { RunRecord } from '../../agent/durable/store.js';
import type { AgentStep, StepToolResult } from '../../agent/run-result.js';
import type { PendingToolCall } from '../../agent/run-state.js';
import type { RunFault, RunResume, StepFallbackMove, StepRetry } from '../../agent/step-timing.js';

// The timeline of one run, drawn from the times its state keeps (`AgentStep.timing`, each tool result's
// `startedAt`/`finishedAt`, approvals, `state.resumes`): one lane per model request and per tool call,
// plus marks for resumes and takeovers. A state written before times were kept yields steps without lanes.

/** A model request of the timeline: queued (budget wait), waiting for its first token, streaming, done. */
export interface ModelLane {
  kind: 'model';
  /** The step (0-based `AgentStep.index`). */
  step: number;
  /** The model that answered. */
  model: string | undefined;
  requestedAt: number;
  sentAt?: number;
  firstTokenAt?: number;
  doneAt: number;
  retries: StepRetry[];
  fallbacks: StepFallbackMove[];
  /** The step's tokens (cached included in input). */
  tokens: { input: number; output: number; cached: number; total: number };
  /** The step's cost in US dollars, when priced. */
  costUsd?: number;
  finishReason: string | null;
  /** Set on a request that failed for good (the run failed there): the error. */
  error?: string;
}

/** A tool call of the timeline; parallel calls of a step are lanes side by side. */
export interface ToolLane {
  kind: 'tool';
  step: number;
  toolCallId: string;
  toolName: string;
  /** `ok`, `error`, `rejected`, ...; `running` while the call has no result yet (a live run). */
  status: string;
  startedAt?: number;
  finishedAt?: number;
  /** Started while the model still streamed. */
  eager: boolean;
  /** The approval the call waited for. */
  approval?: { requestedAt: number; decidedAt?: number; decision: 'approved' | 'rejected' | 'pending' };
}

/** What the page draws of one run. */
export interface RunTimeline {
  /** Earliest time of the run (its record's `createdAt`). */
  start: number;
  /** Latest time known (the record's `updatedAt`, or later marks). */
  end: number;
  lanes: Array<ModelLane | ToolLane>;
  /** Each time the stored run was taken up again (a queued run's first pickup included). */
  resumes: RunResume[];
  /** Sums over the steps. */
  totals: { tokens: ModelLane['tokens']; costUsd?: number; steps: number };
  /** False for a state written before times were kept: the page says so instead of an empty chart. */
  timed: boolean;
}

interface TimedState {
  steps?: AgentStep[];
  pendingToolCalls?: PendingToolCall[];
  resumes?: RunResume[];
  faults?: RunFault[];
}

/** The timeline of `record`, from its state alone. */
export function buildRunTimeline(record: RunRecord): RunTimeline {
  const state = record.state as TimedState;
  const steps = Array.isArray(state.steps) ? state.steps : [];
  const lanes: RunTimeline['lanes'] = [];
  const totals: RunTimeline['totals'] = {
    tokens: { input: 0, output: 0, cached: 0, total: 0 },
    steps: steps.length,
  };
  let timed = false;
  const faults = Array.isArray(state.faults) ? state.faults : [];
  for (const step of steps) {
    // A request that failed before this step's answer came (the run failed, then was resumed).
    for (const fault of faults) if (fault.step === step.index) lanes.push(faultLane(fault));
    const usage = step.usage;
    const tokens = {
      input: usage.promptTokens,
      output: usage.completionTokens,
      cached: usage.cachedTokens,
      total: usage.totalTokens,
    };
    totals.tokens.input += tokens.input;
    totals.tokens.output += tokens.output;
    totals.tokens.cached += tokens.cached;
    totals.tokens.total += tokens.total;
    if (usage.cost !== undefined) totals.costUsd = (totals.costUsd ?? 0) + usage.cost;
    const timing = step.timing;
    if (timing) {
      timed = true;
      const lane: ModelLane = {
        kind: 'model',
        step: step.index,
        model: step.fallback?.model ?? step.model,
        requestedAt: timing.requestedAt,
        doneAt: timing.doneAt,
        retries: timing.retries ?? [],
        fallbacks: timing.fallbacks ?? [],
        tokens,
        finishReason: step.finishReason,
      };
      if (timing.sentAt !== undefined) lane.sentAt = timing.sentAt;
      if (timing.firstTokenAt !== undefined) lane.firstTokenAt = timing.firstTokenAt;
      if (usage.cost !== undefined) lane.costUsd = usage.cost;
      lanes.push(lane);
    }
    for (const result of step.toolResults) lanes.push(toolLane(step.index, result));
  }
  for (const fault of faults) if (fault.step >= steps.length) lanes.push(faultLane(fault));
  if (faults.length > 0) timed = true;
  // The calls of the last step still running or waiting (a live or paused run).
  const last = steps.at(-1);
  for (const call of state.pendingToolCalls ?? []) lanes.push(pendingLane(last?.index ?? 0, call));
  const resumes = Array.isArray(state.resumes) ? state.resumes : [];
  let end = record.updatedAt;
  for (const lane of lanes) {
    end = Math.max(end, lane.kind === 'model' ? lane.doneAt : (lane.finishedAt ?? lane.startedAt ?? 0));
  }
  for (const resume of resumes) end = Math.max(end, resume.at);
  return { start: record.createdAt, end, lanes, resumes, totals, timed };
}

function faultLane(fault: RunFault): ModelLane {
  return {
    kind: 'model',
    step: fault.step,
    model: fault.fallbacks?.at(-1)?.to ?? fault.retries?.at(-1)?.model,
    requestedAt: fault.requestedAt,
    doneAt: fault.at,
    retries: fault.retries ?? [],
    fallbacks: fault.fallbacks ?? [],
    tokens: { input: 0, output: 0, cached: 0, total: 0 },
    finishReason: null,
    error: fault.error,
  };
}

function toolLane(step: number, result: StepToolResult): ToolLane {
  const lane: ToolLane = {
    kind: 'tool',
    step,
    toolCallId: result.toolCallId,
    toolName: result.toolName,
    status: result.status,
    eager: result.eager === true,
  };
  if (result.startedAt !== undefined) lane.startedAt = result.startedAt;
  if (result.finishedAt !== undefined) lane.finishedAt = result.finishedAt;
  if (result.approval) lane.approval = { ...result.approval };
  return lane;
}

function pendingLane(step: number, call: PendingToolCall): ToolLane {
  const lane: ToolLane = {
    kind: 'tool',
    step,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    status: call.finishedAt !== undefined ? 'finished' : call.approval === 'pending' ? 'waiting' : 'running',
    eager: call.eager === true,
  };
  if (call.startedAt !== undefined) lane.startedAt = call.startedAt;
  if (call.finishedAt !== undefined) lane.finishedAt = call.finishedAt;
  if (call.approvalRequestedAt !== undefined) {
    const decision = call.approval === 'approved' || call.approval === 'rejected' ? call.approval : 'pending';
    lane.approval = { requestedAt: call.approvalRequestedAt, decision };
    if (call.decidedAt !== undefined) lane.approval.decidedAt = call.decidedAt;
  }
  return lane;
}
