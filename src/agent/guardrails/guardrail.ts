import type { z } from 'zod';
import { formatIssuePath } from '../../api/schemas/format-issue-path.js';
import type { ChatMessage } from '../../api/types/chat.js';
import type { Agent } from '../agent.js';
import { AgentOptionsError } from '../errors.js';

/** What a guardrail checks. */
export interface GuardrailArgs<C = unknown> {
  /** Input guardrails: the last user message's text; output guardrails: the final output (structured or text). */
  value: unknown;
  /** The same as text (the final answer text, or the user's message). */
  text: string;
  /** The conversation so far. */
  messages: readonly ChatMessage[];
  /** The run's user context. */
  context: C;
  /** Name of the agent being guarded. */
  agent: string;
  /** Fires when the run is aborted (or, for input guardrails, has already finished). */
  signal: AbortSignal;
}

/** A guardrail's answer: `tripwire: true` stops the run. */
export interface GuardrailVerdict {
  /** True when the input or output must not go on. */
  tripwire: boolean;
  /** What the guardrail found (kept on the error as `info`). */
  info?: unknown;
  /** One line saying why; output guardrails with `repair` tell it to the model. */
  reason?: string;
}

/** A check of a run's input or final output; build one with `defineGuardrail`. */
export interface Guardrail<C = unknown> {
  readonly kind: 'guardrail';
  /** Name in errors. */
  readonly name: string;
  /** Input guardrails: run alongside the first model request (tools still wait for it). @default true */
  readonly runInParallel: boolean;
  /** Output guardrails: on a tripwire, tell the model why and let it answer once more. @default false */
  readonly repair: boolean;
  /** Runs the check. */
  check(args: GuardrailArgs<C>): Promise<GuardrailVerdict>;
}

interface GuardrailBase {
  /** Name in errors. */
  name: string;
  /** Input guardrails: run alongside the first model request instead of before it. @default true */
  runInParallel?: boolean;
  /** Output guardrails: on a tripwire, tell the model why and let it answer once more. @default false */
  repair?: boolean;
}

/** Options of `defineGuardrail`: a zod schema the value must match, a function, or an agent. */
export type DefineGuardrailOptions<C = unknown> = GuardrailBase &
  (
    | {
        /** The value must match this schema; otherwise the tripwire fires with the issues as `info`. */
        schema: z.ZodType;
      }
    | {
        /** Decides; its answer is checked (`{ tripwire: boolean, info?, reason? }`). */
        execute: (args: GuardrailArgs<C>) => GuardrailVerdict | Promise<GuardrailVerdict>;
      }
    | {
        /** An agent that judges the text (usually with structured `output`). */
        // biome-ignore lint/suspicious/noExplicitAny: any judging agent.
        agent: Agent<any, any>;
        /** Whether the judge's output (structured, else its text) trips the wire. */
        tripwire: (output: unknown) => boolean;
      }
  );

/**
 * Defines a guardrail for `inputGuardrails` or `outputGuardrails`.
 * @example
 * const noSecrets = defineGuardrail({
 *   name: 'no_secrets',
 *   execute: ({ text }) => ({ tripwire: /password/i.test(text), reason: 'asks for a password' }),
 * });
 */
export function defineGuardrail<C = unknown>(options: DefineGuardrailOptions<C>): Guardrail<C> {
  const { name, runInParallel = true, repair = false } = options;
  if (typeof name !== 'string' || name === '') {
    throw new AgentOptionsError({ field: 'guardrail.name', rule: 'required: a non-empty string' });
  }
  let check: Guardrail<C>['check'];
  if ('schema' in options) {
    const schema = options.schema;
    check = async ({ value }) => {
      const parsed = await schema.safeParseAsync(value);
      if (parsed.success) return { tripwire: false };
      const issues = parsed.error.issues.map(
        (issue) => `${formatIssuePath(issue.path, '(value)')}: ${issue.message}`,
      );
      return { tripwire: true, info: parsed.error.issues, reason: issues.join('; ') };
    };
  } else if ('execute' in options) {
    const execute = options.execute;
    check = async (args) => checkVerdict(name, await execute(args));
  } else if ('agent' in options) {
    const { agent, tripwire } = options;
    check = async ({ text, context, signal }) => {
      const result = await agent.run(text, { context, signal });
      const output = result.output ?? result.text;
      return { tripwire: tripwire(output) === true, info: output };
    };
  } else {
    throw new AgentOptionsError({
      field: `guardrail ${name}`,
      rule: 'needs one of schema, execute or agent',
    });
  }
  return Object.freeze({ kind: 'guardrail' as const, name, runInParallel, repair, check });
}

function checkVerdict(name: string, verdict: unknown): GuardrailVerdict {
  const value = verdict as Partial<GuardrailVerdict> | null;
  if (typeof value !== 'object' || value === null || typeof value.tripwire !== 'boolean') {
    throw new AgentOptionsError({
      field: `guardrail ${name}`,
      rule: 'execute must answer { tripwire: boolean, info?, reason? }',
    });
  }
  if (value.reason !== undefined && typeof value.reason !== 'string') {
    throw new AgentOptionsError({ field: `guardrail ${name}`, rule: 'reason must be a string' });
  }
  return value as GuardrailVerdict;
}
