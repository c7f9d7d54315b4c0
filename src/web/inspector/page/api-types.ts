// The JSON the inspector's routes answer, as the page reads it (types only: erased from the bundle).
export type { RunQueryPage, RunSummary } from '../../../agent/durable/run-query.js';
export type { ModelLane, RunTimeline, ToolLane } from '../run-timeline.js';

import type { RunSummary } from '../../../agent/durable/run-query.js';
import type { RunTimeline } from '../run-timeline.js';

/** The state after one step, with the diff to the one before (see run-checkpoints.ts). */
export interface Checkpoint {
  step: number;
  turn: number;
  messageCount: number;
  usage: WireStep['usage'];
  diff: Array<{ path: string; kind: 'added' | 'removed' | 'changed'; before?: unknown; after?: unknown }>;
}

/** A message of the run's conversation (wire format, loosely). */
export interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: unknown;
  tool_calls?: Array<{ id: string; function: { name?: string; arguments?: string } }>;
  tool_call_id?: string;
  reasoning?: string;
}

/** A step of the run's state, as far as the page shows it. */
export interface WireStep {
  index: number;
  toolResults: Array<{
    toolCallId: string;
    toolName: string;
    status: string;
    content: string;
    input?: unknown;
  }>;
  usage: {
    promptTokens: number;
    completionTokens: number;
    cachedTokens: number;
    totalTokens: number;
    cost?: number;
  };
}

/** `GET runs/:id`. */
export interface RunDetail {
  summary: RunSummary;
  record: {
    id: string;
    agentName: string;
    status: RunSummary['status'];
    version: number;
    createdAt: number;
    updatedAt: number;
    interruptions: Array<{ toolCallId: string; toolName: string; input: unknown }>;
    error?: string;
    text?: string;
    sessionId?: string;
    sessionStart?: number;
    forkedFrom?: { runId: string; step: number };
    tenant?: string;
  };
  timeline: RunTimeline;
  checkpoints: Checkpoint[];
  messages: WireMessage[];
  steps: WireStep[];
  forks: Array<{ runId: string; step: number }>;
  /** Why the state could not be read (it is shown as the record holds it). */
  stateError?: string;
  actions: {
    fork: { enabled: true; canChange: boolean } | { enabled: false; reason: string };
    export: { enabled: true } | { enabled: false; reason: string };
  };
}
