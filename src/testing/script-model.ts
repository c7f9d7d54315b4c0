import type { Usage } from '../api/types/chat.js';
import type { Emulator, EmulatorFault, ScriptedAnswer } from '../emulator/types.js';
import { ScriptNotConsumedError } from './errors.js';

/** A tool call the scripted model makes; `arguments` as an object is JSON-encoded. */
export interface ScriptedCall {
  name: string;
  arguments?: Record<string, unknown> | string;
  /** The call id; the emulator makes one when absent. */
  id?: string;
}

/** Options of a scripted text answer. */
export interface ScriptedTextOptions {
  /** Reasoning sent before the text. */
  reasoning?: string;
  /** Usage reported for the answer. */
  usage?: Partial<Usage>;
  /** A fault on this answer: cut, stall, drip, malformed chunk. */
  fault?: EmulatorFault;
}

/** The emulator's next answers, written one call per turn; `assertComplete()` checks all were used. */
export interface ScriptedModel {
  /** Answers with text. */
  text(content: string, options?: ScriptedTextOptions): ScriptedModel;
  /** Answers with tool calls (several make parallel calls). */
  toolCalls(calls: ScriptedCall[], options?: Omit<ScriptedTextOptions, 'usage'>): ScriptedModel;
  /** Answers with an HTTP error: the service's body for the status unless `body` is given. */
  error(status: number, options?: { body?: unknown; headers?: Record<string, string> }): ScriptedModel;
  /** Holds the next answer for `ms` before the default model gives it (a slow service, a timeout test). */
  stall(ms: number): ScriptedModel;
  /** Answers still queued. */
  readonly remaining: number;
  /** Throws when scripted answers were not consumed: the agent made fewer model requests than scripted. */
  assertComplete(): void;
}

/**
 * A typed script of the emulator's next chat-completion answers, consumed first in, first out, by any
 * client or agent pointed at the emulator.
 *
 * @example
 * const model = scriptModel(emu)
 *   .toolCalls([{ name: 'get_weather', arguments: { city: 'Paris' } }])
 *   .text('It is 14 °C in Paris.');
 * await agent.run('Weather in Paris?');
 * model.assertComplete();
 */
export function scriptModel(emulator: Emulator): ScriptedModel {
  let queued = 0;
  const push = (answer: ScriptedAnswer): ScriptedModel => {
    emulator.script([answer]);
    queued++;
    return model;
  };
  const model: ScriptedModel = {
    text: (content, { reasoning, usage, fault } = {}) =>
      push({
        message: { content, ...(reasoning === undefined ? {} : { reasoning }) },
        ...(usage ? { usage } : {}),
        ...(fault ? { fault } : {}),
      }),
    toolCalls: (calls, { reasoning, fault } = {}) =>
      push({
        message: {
          content: '',
          tool_calls: calls.map((call) => ({
            ...(call.id === undefined ? {} : { id: call.id }),
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments ?? {} },
          })),
          ...(reasoning === undefined ? {} : { reasoning }),
        },
        ...(fault ? { fault } : {}),
      }),
    error: (status, { body, headers } = {}) =>
      push({ error: { status, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) } }),
    stall: (ms) => push({ fault: { latencyMs: ms } }),
    get remaining() {
      return emulator.scriptedRemaining();
    },
    assertComplete() {
      const left = emulator.scriptedRemaining();
      if (left > 0) throw new ScriptNotConsumedError(left, queued);
    },
  };
  return model;
}
