import { formatIssuePath } from '../api/schemas/format-issue-path.js';
import type { ChatMessage } from '../api/types/chat.js';
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS } from '../tools/format-tool-output.js';
import { ToolCallLedger } from '../tools/tool-call-ledger.js';
import { RunStateError, ToolApprovalError } from './errors.js';
import type { AgentStep, ToolApprovalItem } from './run-result.js';
import {
  getRunStateJsonSchema,
  READABLE_RUN_STATE_VERSIONS,
  RUN_STATE_SCHEMA_VERSION,
  type RunStateJson,
} from './run-state-schema.js';
import type { RunFault, RunResume } from './step-timing.js';
import { type AgentUsage, emptyUsage } from './usage.js';

/** A function call of the last turn that has no `tool` message yet. */
export interface PendingToolCall {
  toolCallId: string;
  toolName: string;
  /** The exact arguments text the model sent. */
  arguments: string;
  input: unknown;
  /** `none`: runs without a human; `pending`: waits; `approved` / `rejected`: decided. */
  approval: 'none' | 'pending' | 'approved' | 'rejected';
  rejectionMessage?: string;
  /** A client-side tool's call: it is answered with `clientOutput` (supplied by the caller), never run. */
  clientSide?: true;
  /** The output the caller supplied for a client-side call (`supplyOutput`). */
  clientOutput?: unknown;
  /** The paused run of an agent used as a tool: its interruptions are this run's, and it resumes with it. */
  subRun?: RunState;
  /** When the run paused for this call's approval (epoch ms). */
  approvalRequestedAt?: number;
  /** When the approval was decided (epoch ms). */
  decidedAt?: number;
  /** When its tool started (epoch ms). */
  startedAt?: number;
  /** When its tool finished (epoch ms). */
  finishedAt?: number;
  /** True when its tool started while the model still streamed. */
  eager?: true;
}

/** What `RunState.fromJSON` needs to know about the agent that resumes the run. */
export interface RunStateOwner {
  /** True when the agent has a local function tool of this name. */
  hasFunctionTool(name: string): boolean;
}

/**
 * Everything a run needs to continue: the conversation, the steps so far, usage, the calls waiting for
 * tool messages (and approvals), and the outcomes of those already finished, so a resumed run never
 * executes a finished call again. `JSON.stringify(state)` and `RunState.fromJSON(text, agent)` move it
 * between processes.
 */
export class RunState {
  /** The conversation so far in wire format; while calls are pending it ends with their assistant message. */
  messages: ChatMessage[];
  /** The steps of the run so far. */
  steps: AgentStep[];
  /** Usage summed over all turns so far. */
  usage: AgentUsage;
  /** Model requests made so far, over every resume. */
  turn: number;
  /** Calls of the last turn still lacking a `tool` message. */
  pendingToolCalls: PendingToolCall[];
  /** Finished tool outcomes of the run, by `toolCallId`: a resumed run never executes them again. */
  ledger: ToolCallLedger;
  /** Corrective turns already spent on invalid structured output. */
  outputRepairs: number;
  /** Corrective turns already spent on answers an output guardrail refused (with `repair`). */
  guardrailRepairs: number;
  /** Name of the agent in charge since a handoff; `undefined` while the agent the run started on is. */
  currentAgent: string | undefined;
  /** The `turn` at which the current invocation's turn budget (`maxTurns`) is spent; set as each invocation starts. */
  turnLimit: number | undefined;
  /** Each time the stored run was taken up again from its checkpoint (resumes and worker takeovers), in order. */
  resumes: RunResume[];
  /** Model requests that failed for good, in order (the run failed there; a resume tried again). */
  faults: RunFault[];

  constructor(
    init: Partial<
      Omit<RunState, 'approve' | 'reject' | 'supplyOutput' | 'toJSON' | 'interruptions' | 'clone'>
    > = {},
  ) {
    this.messages = init.messages ?? [];
    this.steps = init.steps ?? [];
    this.usage = init.usage ?? emptyUsage();
    this.turn = init.turn ?? 0;
    this.pendingToolCalls = init.pendingToolCalls ?? [];
    this.ledger = init.ledger ?? new ToolCallLedger();
    this.outputRepairs = init.outputRepairs ?? 0;
    this.guardrailRepairs = init.guardrailRepairs ?? 0;
    this.currentAgent = init.currentAgent;
    this.turnLimit = init.turnLimit;
    this.resumes = init.resumes ?? [];
    this.faults = init.faults ?? [];
  }

  /** The calls waiting for a human decision. */
  get interruptions(): ToolApprovalItem[] {
    return this.pendingToolCalls
      .filter((call) => call.approval === 'pending')
      .flatMap(({ toolCallId, toolName, input, subRun, clientSide }) =>
        subRun
          ? subRun.interruptions
          : [clientSide ? { toolCallId, toolName, input, clientSide } : { toolCallId, toolName, input }],
      );
  }

  /** Lets a paused call run when the run resumes with `agent.run(state)`. */
  approve(toolCallId: string): this {
    if (this.#decideInSubRun(toolCallId, (sub) => sub.approve(toolCallId))) return this;
    const call = this.#awaitingDecision(toolCallId);
    if (call.clientSide)
      throw new ToolApprovalError({
        toolCallId,
        message: `Tool call "${toolCallId}" is a client-side tool's call: supply its output with supplyOutput`,
      });
    call.approval = 'approved';
    call.decidedAt = Date.now();
    return this;
  }

  /**
   * Answers a client-side tool's paused call with `output` (what the AI SDK's `addToolOutput` sends); the
   * call counts as done when the run resumes with `agent.run(state)`, and the model reads the output.
   */
  supplyOutput(toolCallId: string, output: unknown): this {
    if (this.#decideInSubRun(toolCallId, (sub) => sub.supplyOutput(toolCallId, output))) return this;
    const call = this.#awaitingDecision(toolCallId);
    if (!call.clientSide || call.approval !== 'pending')
      throw new ToolApprovalError({
        toolCallId,
        message: `Tool call "${toolCallId}" is not a client-side call waiting for its output`,
      });
    call.approval = 'approved';
    call.decidedAt = Date.now();
    call.clientOutput = output;
    return this;
  }

  /** Refuses a paused call; the model is told it was rejected, with `message` as the reason. */
  reject(toolCallId: string, message?: string): this {
    if (this.#decideInSubRun(toolCallId, (sub) => sub.reject(toolCallId, message))) return this;
    const call = this.#awaitingDecision(toolCallId);
    call.approval = 'rejected';
    call.decidedAt = Date.now();
    if (message !== undefined) call.rejectionMessage = message;
    else delete call.rejectionMessage;
    return this;
  }

  /** Decides a call of a paused sub-agent; once none of its calls waits, the agent tool's call may run. */
  #decideInSubRun(toolCallId: string, decide: (sub: RunState) => void): boolean {
    const owner = this.pendingToolCalls.find(
      (call) => call.subRun?.interruptions.some((item) => item.toolCallId === toolCallId) === true,
    );
    if (!owner?.subRun) return false;
    decide(owner.subRun);
    if (owner.subRun.interruptions.length === 0) owner.approval = 'approved';
    return true;
  }

  #awaitingDecision(toolCallId: string): PendingToolCall {
    const call = this.pendingToolCalls.find((candidate) => candidate.toolCallId === toolCallId);
    if (!call || call.approval === 'none' || call.subRun) {
      const waiting = this.interruptions.map((item) => item.toolCallId);
      throw new ToolApprovalError({
        toolCallId,
        message: `No tool call "${toolCallId}" awaits approval; waiting: ${waiting.join(', ') || 'none'}`,
      });
    }
    return call;
  }

  /** A copy to run on, so resuming leaves this state as it was (the ledger is shared: at most once still holds). */
  clone(): RunState {
    return new RunState({
      messages: [...this.messages],
      steps: this.steps.map((step) => ({ ...step })),
      usage: { ...this.usage },
      turn: this.turn,
      pendingToolCalls: this.pendingToolCalls.map((call) =>
        call.subRun ? { ...call, subRun: call.subRun.clone() } : { ...call },
      ),
      ledger: this.ledger,
      outputRepairs: this.outputRepairs,
      guardrailRepairs: this.guardrailRepairs,
      currentAgent: this.currentAgent,
      turnLimit: this.turnLimit,
      resumes: [...this.resumes],
      faults: [...this.faults],
    });
  }

  /** The versioned JSON form (what `JSON.stringify(state)` writes). */
  toJSON(): RunStateJson {
    return {
      $schemaVersion: RUN_STATE_SCHEMA_VERSION,
      turn: this.turn,
      messages: this.messages as unknown as RunStateJson['messages'],
      steps: this.steps.map(toJsonSafeStep) as unknown as RunStateJson['steps'],
      usage: this.usage,
      pendingToolCalls: this.pendingToolCalls.map((call) =>
        call.subRun ? { ...call, subRun: call.subRun.toJSON() } : call,
      ),
      ledger: this.ledger.toJSON(),
      outputRepairs: this.outputRepairs,
      guardrailRepairs: this.guardrailRepairs,
      ...(this.currentAgent !== undefined && { currentAgent: this.currentAgent }),
      ...(this.turnLimit !== undefined && { turnLimit: this.turnLimit }),
      ...(this.resumes.length > 0 && { resumes: this.resumes }),
      ...(this.faults.length > 0 && { faults: this.faults as unknown as RunStateJson['faults'] }),
    };
  }

  /** Reads a state written by `JSON.stringify(state)`, checking its version and that `agent` has its tools. */
  static fromJSON(text: string | RunStateJson, agent: RunStateOwner): RunState {
    let raw: unknown;
    try {
      raw = typeof text === 'string' ? JSON.parse(text) : text;
    } catch (cause) {
      throw new RunStateError('RunState.fromJSON: the text is not JSON', { cause });
    }
    const version = (raw as { $schemaVersion?: unknown } | null)?.$schemaVersion;
    if (typeof version !== 'number' || !READABLE_RUN_STATE_VERSIONS.includes(version)) {
      throw new RunStateError(
        `RunState.fromJSON: $schemaVersion ${JSON.stringify(version)} is not supported; this version reads ${READABLE_RUN_STATE_VERSIONS.join(' and ')}`,
      );
    }
    const parsed = getRunStateJsonSchema().safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (issue) => `${formatIssuePath(issue.path, '(root)')}: ${issue.message}`,
      );
      throw new RunStateError(`RunState.fromJSON: invalid state: ${issues.join('; ')}`);
    }
    const json = parsed.data;
    const ledger = ToolCallLedger.fromJSON(json.ledger);
    // A call already answered (an unknown tool's error, a finished call) needs no tool to resume.
    const missing = json.pendingToolCalls.filter(
      (call) => !agent.hasFunctionTool(call.toolName) && ledger.get(call.toolCallId) === undefined,
    );
    if (missing.length > 0) {
      throw new RunStateError(
        `RunState.fromJSON: the agent has no tool ${missing.map((call) => `"${call.toolName}"`).join(', ')} that the saved run waits on`,
      );
    }
    return new RunState({
      turn: json.turn,
      messages: json.messages as unknown as ChatMessage[],
      steps: json.steps as unknown as AgentStep[],
      usage: json.usage,
      pendingToolCalls: json.pendingToolCalls.map((call) => {
        const pending = { ...call } as PendingToolCall;
        // A sub-agent's tools belong to that agent, which the agent tool brings back on resume.
        if (call.subRun !== undefined)
          pending.subRun = RunState.fromJSON(call.subRun as RunStateJson, anyOwner);
        else delete pending.subRun;
        return pending;
      }),
      ledger,
      outputRepairs: json.outputRepairs,
      guardrailRepairs: json.guardrailRepairs ?? 0,
      currentAgent: json.currentAgent,
      turnLimit: json.turnLimit,
      resumes: (json.resumes ?? []) as RunResume[],
      faults: (json.faults ?? []) as unknown as RunFault[],
    });
  }
}

const anyOwner: RunStateOwner = { hasFunctionTool: () => true };

// Tool outputs may hold values JSON cannot carry (BigInt, cycles); the tool message text is what matters.
function toJsonSafeStep(step: AgentStep): AgentStep {
  return {
    ...step,
    toolResults: step.toolResults.map((result) => ({ ...result, output: toJsonSafe(result.output) })),
  };
}

function toJsonSafe(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    // A huge output stays out of the saved state: its capped tool message is in `messages`.
    return text === undefined || text.length > DEFAULT_MAX_TOOL_OUTPUT_CHARS ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
