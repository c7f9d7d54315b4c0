import { formatIssuePath } from '../api/schemas/format-issue-path.js';
import { UserError } from '../core/errors.js';
import { loadZod } from '../core/load-module.js';
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS } from './format-tool-output.js';
import { TOOL_CALL_STATUSES, type ToolCallOutcome } from './tool.js';

/** A completed outcome as stored in a run's saved state. */
export interface SerializedToolCallOutcome {
  toolCallId: string;
  toolName: string;
  input: unknown;
  status: ToolCallOutcome['status'];
  content: string;
  /** Present only when the output survives a JSON round trip. */
  output?: unknown;
}

/** The JSON form of a `ToolCallLedger`. */
export interface ToolCallLedgerJSON {
  $schemaVersion: 1;
  entries: SerializedToolCallOutcome[];
}

// Built on the first `fromJSON`, so importing svc-agents does not load zod.
let ledgerSchema: ReturnType<typeof createLedgerSchema> | undefined;

function createLedgerSchema() {
  const { z } = loadZod();
  return z.object({
    $schemaVersion: z.literal(1),
    entries: z.array(
      z.object({
        toolCallId: z.string(),
        toolName: z.string(),
        input: z.unknown(),
        status: z.enum(TOOL_CALL_STATUSES),
        content: z.string(),
        output: z.unknown().optional(),
      }),
    ),
  });
}

/**
 * Remembers every tool call of a run so each `tool_call_id` runs at most once: a repeated or concurrent
 * `run(id)` gets the first call's outcome, and a saved ledger restored with `fromJSON` keeps that promise
 * across a resumed run. A call aborted before its tool started is forgotten, so a resumed run may start it.
 */
export class ToolCallLedger {
  readonly #calls = new Map<string, Promise<ToolCallOutcome>>();
  readonly #completed = new Map<string, ToolCallOutcome>();

  /**
   * Runs `fn` for `id` unless that id already ran or is running; answers that outcome. With
   * `rerunIfStopped` (an idempotent tool), an aborted call is forgotten even when its tool had started.
   */
  run(id: string, fn: () => Promise<ToolCallOutcome>, rerunIfStopped = false): Promise<ToolCallOutcome> {
    const completed = this.#completed.get(id);
    if (completed) return Promise.resolve(completed);
    const existing = this.#calls.get(id);
    if (existing) return existing;
    let started: Promise<ToolCallOutcome>;
    try {
      // Started at once (no extra tick per call): `fn` cannot reach this ledger before the call is recorded.
      started = fn();
    } catch (error) {
      started = Promise.reject(error);
    }
    const call = started.then((outcome) => {
      if (outcome.status === 'aborted' && (!outcome.executed || rerunIfStopped)) this.#calls.delete(id);
      else this.#completed.set(id, outcome);
      return outcome;
    });
    // A rejected call stays recorded: it may have reached its tool, so it must not run again.
    this.#calls.set(id, call);
    return call;
  }

  /** The completed outcome of `id`, if any. */
  get(id: string): ToolCallOutcome | undefined {
    return this.#completed.get(id);
  }

  /** True when `id` has run or is running. */
  has(id: string): boolean {
    return this.#completed.has(id) || this.#calls.has(id);
  }

  /** Completed outcomes in the order they finished. */
  entries(): ToolCallOutcome[] {
    return [...this.#completed.values()];
  }

  /** Completed outcomes only, key-free and JSON-safe, for a run's saved state. */
  toJSON(): ToolCallLedgerJSON {
    return {
      $schemaVersion: 1,
      entries: this.entries().map((outcome) => {
        const entry: SerializedToolCallOutcome = {
          toolCallId: outcome.toolCallId,
          toolName: outcome.toolName,
          input: jsonSafe(outcome.input),
          status: outcome.status,
          content: outcome.content,
        };
        const output = jsonSafe(outcome.output);
        if (output !== undefined) entry.output = output;
        return entry;
      }),
    };
  }

  /** Restores a ledger saved with `toJSON` (object or JSON text); a wrong shape or version is an error. */
  static fromJSON(json: unknown): ToolCallLedger {
    let data = json;
    if (typeof json === 'string') {
      try {
        data = JSON.parse(json);
      } catch (error) {
        throw new UserError('Invalid tool-call ledger: not JSON', { cause: error });
      }
    }
    ledgerSchema ??= createLedgerSchema();
    const parsed = ledgerSchema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = formatIssuePath(issue?.path ?? [], '(root)');
      throw new UserError(`Invalid tool-call ledger: ${where}: ${issue?.message ?? 'unknown shape'}`);
    }
    const ledger = new ToolCallLedger();
    for (const entry of parsed.data.entries) {
      const outcome: ToolCallOutcome = {
        toolCallId: entry.toolCallId,
        toolName: entry.toolName,
        input: entry.input,
        status: entry.status,
        output: entry.output,
        content: entry.content,
        // Restored outcomes stand for calls that already happened; only these ones reached `execute`.
        executed:
          entry.status === 'ok' ||
          entry.status === 'error' ||
          entry.status === 'timeout' ||
          entry.status === 'aborted',
      };
      ledger.#completed.set(entry.toolCallId, outcome);
    }
    return ledger;
  }
}

/** Longest output JSON kept in a saved ledger: the `tool` message (content, capped) is what matters. */
const maxSavedOutputChars = DEFAULT_MAX_TOOL_OUTPUT_CHARS;

function jsonSafe(value: unknown): unknown {
  if (value === undefined) return undefined;
  try {
    const text = JSON.stringify(value);
    return text === undefined || text.length > maxSavedOutputChars ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
