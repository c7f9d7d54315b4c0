import type { ChatMessage } from '../../api/types/chat.js';
import { addAbortListener, removeAbortListener } from '../../core/abort-listeners.js';
import { guardrailRepairMessage } from '../../tools/model-texts.js';
import { GuardrailTripwireError } from '../errors.js';
import { neverAborted } from '../loop/run-signal.js';
import type { RunState } from '../run-state.js';
import type { Guardrail, GuardrailArgs } from './guardrail.js';

/**
 * The parallel input guardrails of a run, running alongside its first request. They get the run's own
 * signal: a tripwire aborts it (and so the request in flight), and so does the caller's signal while the
 * run and its guardrails last. Tools wait for `passed` before they start.
 */
export class InputCheck {
  /** The run's signal while the check lasts: the caller's, and aborted by a tripwire. */
  readonly signal: AbortSignal;
  /** The tripwire (or the guardrail's failure) that stopped the run, once there is one. */
  tripped: unknown;
  readonly #done: Promise<void>;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #onCallerAbort: () => void;

  constructor(
    guards: readonly Guardrail[],
    args: Omit<GuardrailArgs, 'signal'>,
    callerSignal: AbortSignal | undefined,
    state: RunState,
  ) {
    const controller = new AbortController();
    this.signal = controller.signal;
    this.#callerSignal = callerSignal;
    this.#onCallerAbort = () => controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) this.#onCallerAbort();
    else if (callerSignal) addAbortListener(callerSignal, this.#onCallerAbort);
    const stop = (error: unknown) => {
      this.tripped = error;
      controller.abort(error);
    };
    this.#done = firstTripwire(guards, { ...args, signal: this.signal }, 'input', state).then(
      (error) => (error ? stop(error) : undefined),
      stop,
    );
  }

  /** Waits for the guardrails; throws their tripwire (tools and the final answer wait for this). */
  async passed(): Promise<void> {
    await this.#done;
    if (this.tripped) throw this.tripped;
  }

  /**
   * The run ended: the guardrails may outlive a failed run, so the caller's abort reaches them until they
   * end; then nothing stays registered on a signal that outlives the run.
   */
  release(): void {
    const callerSignal = this.#callerSignal;
    if (callerSignal === undefined) return;
    this.#done.then(() => removeAbortListener(callerSignal, this.#onCallerAbort));
  }
}

/**
 * Checks a run's input before its first turn: the serial guardrails now (a tripwire is thrown), the
 * parallel ones alongside the first request (the answer, `undefined` when there are none).
 */
export async function checkInput(
  guards: readonly Guardrail[],
  state: RunState,
  context: unknown,
  agent: string,
  signal: AbortSignal | undefined,
): Promise<InputCheck | undefined> {
  const text = lastUserText(state.messages);
  const args = { value: text, text, messages: state.messages, context, agent };
  const serial = guards.filter((guard) => !guard.runInParallel);
  const trip = await firstTripwire(serial, { ...args, signal: signal ?? neverAborted }, 'input', state);
  if (trip) throw trip;
  const parallel = guards.filter((guard) => guard.runInParallel);
  return parallel.length > 0 ? new InputCheck(parallel, args, signal, state) : undefined;
}

/** Guardrail repairs allowed per final answer: one corrective turn, then the tripwire is thrown. */
const MAX_GUARDRAIL_REPAIRS = 1;

/**
 * The output guardrails' hook before the final answer: answers `repair` when a guardrail with `repair`
 * refused it and the model gets one corrective turn (a user message saying why, if a turn is left); any
 * other tripwire is thrown. The repairs spent live in the state, so a resumed run honours them; an
 * answer that passes resets them.
 */
export async function checkOutput(
  guards: readonly Guardrail[],
  args: GuardrailArgs,
  state: RunState,
): Promise<'repair' | undefined> {
  const trip = await firstTripwire(guards, args, 'output', state);
  if (!trip) {
    state.guardrailRepairs = 0;
    return undefined;
  }
  const guard = guards.find((candidate) => candidate.name === trip.guardrail);
  const turnsLeft = (state.turnLimit ?? state.turn) - state.turn;
  if (!guard?.repair || state.guardrailRepairs >= MAX_GUARDRAIL_REPAIRS || turnsLeft <= 0) throw trip;
  state.guardrailRepairs += 1;
  state.messages.push(guardrailRepairMessage(trip.guardrail, trip.reason));
  return 'repair';
}

/** Runs guardrails at once; the first tripwire (in list order) becomes the error, carrying the state. */
async function firstTripwire(
  guards: readonly Guardrail[],
  args: GuardrailArgs,
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
