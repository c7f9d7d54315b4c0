import type { ChatMessage } from '../api/types/chat.js';
import { addAbortListener, removeAbortListener } from '../transport/abort-listeners.js';
import type { AgentInternals } from './agent-internals.js';
import { agentInternals } from './agent-internals.js';
import type { CreateChatCompletion } from './call-model.js';
import { MaxTurnsExceededError } from './errors/max-turns-exceeded-error.js';
import type { AgentEvent } from './events.js';
import type { Guardrail } from './guardrails/guardrail.js';
import { GuardrailTripwireError } from './guardrails/guardrail-tripwire-error.js';
import { requestedHandoff } from './handoffs/handoff.js';
import { type RunAgentOptions, runAgent } from './run-agent.js';
import type { RunResult } from './run-result.js';
import type { RunState } from './run-state.js';

/** Options of `runComposed`. */
export interface RunComposedOptions {
  /** The agent `run`/`stream` was called on. */
  agent: object;
  /** The input was a saved `RunState`: its input was checked when it started, and handoffs are replayed. */
  resumed: boolean;
  /** The run's instrumentation, put around the model call of each agent that takes over. */
  wrapModelCall?: ((create: CreateChatCompletion) => CreateChatCompletion) | undefined;
}

/**
 * A run with handoffs and guardrails around the plain loop: input guardrails before or alongside the first
 * request (tools wait for them), then `runAgent` for the agent in charge; a successful `transfer_to_<name>`
 * call ends that agent's part and the next one continues on the same state (filtered history, `handoff`
 * event, shared turn budget); output guardrails check the final answer, with at most one corrective turn.
 */
export async function runComposed(
  base: RunAgentOptions,
  { agent, resumed, wrapModelCall }: RunComposedOptions,
): Promise<RunResult<unknown>> {
  const { state } = base;
  let current = resumed ? replayHandoffs(agentInternals(agent), state) : agentInternals(agent);
  let options = current === agentInternals(agent) ? base : await optionsFor(base, current, wrapModelCall);
  const firstTurn = state.turn;
  let started = false;
  let repaired = false;

  // Input guardrails: serial ones first; parallel ones alongside the first request, tools waiting for them.
  // A tripwire, or a guardrail that failed: either stops the run.
  let tripped: unknown;
  let inputCheck: Promise<void> | undefined;
  let signal = base.signal;
  let unsubscribe: (() => void) | undefined;
  // Until the run's first model turn (a queued run starts through `resume`), its input is unchecked.
  const guards = resumed && state.steps.length > 0 ? [] : current.options.inputGuardrails;
  if (guards.length > 0) {
    const text = lastUserText(state.messages);
    const args = {
      value: text,
      text,
      messages: state.messages,
      context: base.context,
      agent: current.options.name,
    };
    const serial = guards.filter((guard) => !guard.runInParallel);
    const trip = await firstTripwire(serial, { ...args, signal }, 'input', state);
    if (trip) throw trip;
    const parallel = guards.filter((guard) => guard.runInParallel);
    if (parallel.length > 0) {
      // The run's own controller: a tripwire aborts it, and so does the caller's signal while the run and
      // its guardrails last (then unsubscribed: nothing stays registered on a signal that outlives the run).
      const controller = new AbortController();
      const onCallerAbort = () => controller.abort(base.signal.reason);
      if (base.signal.aborted) onCallerAbort();
      else {
        addAbortListener(base.signal, onCallerAbort);
        unsubscribe = () => removeAbortListener(base.signal, onCallerAbort);
      }
      signal = controller.signal;
      const stop = (error: unknown) => {
        tripped = error;
        controller.abort(error);
      };
      inputCheck = firstTripwire(parallel, { ...args, signal }, 'input', state).then(
        (error) => (error ? stop(error) : undefined),
        stop,
      );
    }
  }
  const beforeTools = inputCheck
    ? async () => {
        await inputCheck;
        if (tripped) throw tripped;
      }
    : undefined;

  try {
    for (;;) {
      const owner = current;
      const emitBase = base.emit;
      const emit =
        emitBase &&
        ((event: AgentEvent) => {
          // One `start` and one `finish` for the whole run, whichever agents take part.
          if (event.type === 'start') {
            if (started) return;
            started = true;
          }
          if (event.type === 'finish' && requestedHandoff(state.steps.at(-1), owner.options.handoffs)) return;
          emitBase(event);
        });
      const turnsLeft = base.maxTurns - (state.turn - firstTurn);
      const result = await runAgent({
        ...options,
        signal,
        emit,
        beforeTools,
        maxTurns: Math.max(1, turnsLeft),
      });
      if (inputCheck) await inputCheck;
      if (tripped) throw tripped;
      result.lastAgent = current.options.name;
      if (result.status === 'interrupted') return result;

      const requested = requestedHandoff(state.steps.at(-1), current.options.handoffs);
      if (requested) {
        if (state.turn - firstTurn >= base.maxTurns) {
          throw new MaxTurnsExceededError({ maxTurns: base.maxTurns, result, state });
        }
        const next = agentInternals(requested.handoff.agent);
        const filter = requested.handoff.inputFilter;
        if (filter) {
          state.messages = filter({
            messages: [...state.messages],
            from: current.options.name,
            to: next.options.name,
          });
        }
        base.emit?.({
          type: 'handoff',
          from: current.options.name,
          to: next.options.name,
          toolCallId: requested.toolCallId,
        });
        current = next;
        options = await optionsFor(base, next, wrapModelCall);
        continue;
      }

      const outputGuards = current.options.outputGuardrails;
      if (outputGuards.length > 0) {
        const args = {
          value: result.output ?? result.text,
          text: result.text,
          messages: state.messages,
          context: base.context,
          agent: current.options.name,
          signal,
        };
        const trip = await firstTripwire(outputGuards, args, 'output', state);
        if (trip) {
          const guard = outputGuards.find((candidate) => candidate.name === trip.guardrail);
          if (!guard?.repair || repaired || state.turn - firstTurn >= base.maxTurns) throw trip;
          repaired = true;
          const why = trip.reason;
          state.messages.push({
            role: 'user',
            content: `Your answer did not pass the ${trip.guardrail} check${why ? ` (${why})` : ''}. Answer again, fixing that.`,
          });
          continue;
        }
      }
      return result;
    }
  } catch (error) {
    if (error instanceof MaxTurnsExceededError) error.result.lastAgent ??= current.options.name;
    // An input tripwire aborts the request in flight: report the tripwire, not the abort it caused.
    throw tripped ?? error;
  } finally {
    // Parallel guardrails may outlive a failed run: the caller's abort still reaches them until they end.
    if (inputCheck && unsubscribe) inputCheck.then(unsubscribe);
  }
}

/**
 * Run options for another agent of the same run: its options (by reference), tools, output and client; its
 * model call goes through the run's instrumentation and then the agent's own context window, as the first
 * agent's does. The rest is the run's.
 */
async function optionsFor(
  base: RunAgentOptions,
  internals: AgentInternals,
  wrapModelCall: RunComposedOptions['wrapModelCall'],
): Promise<RunAgentOptions> {
  const observed = wrapModelCall ? wrapModelCall(internals.create) : internals.create;
  const create = await internals.wrapCreate(observed, base.state, base.emit);
  return {
    ...base,
    agent: internals.options,
    toolSet: internals.options.toolSet,
    output: internals.output(),
    client: internals.client,
    create,
  };
}

/** Follows the handoffs recorded in a saved run's steps, so a resumed run continues with the agent in charge. */
function replayHandoffs(start: AgentInternals, state: RunState): AgentInternals {
  let current = start;
  for (const step of state.steps) {
    const requested = requestedHandoff(step, current.options.handoffs);
    if (requested) current = agentInternals(requested.handoff.agent);
  }
  return current;
}

/** Runs guardrails at once; the first tripwire (in list order) becomes the error, carrying the state. */
async function firstTripwire(
  guards: readonly Guardrail[],
  args: Parameters<Guardrail['check']>[0],
  stage: 'input' | 'output',
  state: RunState,
): Promise<GuardrailTripwireError | undefined> {
  if (guards.length === 0) return undefined;
  const verdicts = await Promise.all(guards.map((guard) => guard.check(args)));
  const index = verdicts.findIndex((verdict) => verdict.tripwire);
  if (index < 0) return undefined;
  const verdict = verdicts[index]!;
  return new GuardrailTripwireError({
    guardrail: guards[index]!.name,
    stage,
    info: verdict.info,
    reason: verdict.reason,
    state,
  });
}

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    return message.content
      .map((part) => (part.type === 'text' ? part.text : ''))
      .filter(Boolean)
      .join('\n');
  }
  return '';
}
