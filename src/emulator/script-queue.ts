import { invalidParams } from './errors.js';
import { checkFault } from './faults.js';
import type { ScriptedAnswer } from './types.js';

const KINDS = ['message', 'completion', 'chunks', 'error', 'fault'] as const;

/** FIFO queue of scripted answers for chat-completion requests. */
export class ScriptQueue {
  private readonly queue: ScriptedAnswer[] = [];

  /** Checks and appends answers; a bad one is refused with a message naming it. */
  push(answers: unknown): void {
    if (!Array.isArray(answers)) throw invalidParams('answers: must be an array of scripted answers');
    for (const [i, answer] of answers.entries()) checkAnswer(answer, i);
    this.queue.push(...(answers as ScriptedAnswer[]));
  }

  /** The next answer, removed from the queue. */
  shift(): ScriptedAnswer | undefined {
    return this.queue.shift();
  }

  /** Answers still queued. */
  get size(): number {
    return this.queue.length;
  }

  /** Drops every queued answer. */
  clear(): void {
    this.queue.length = 0;
  }
}

function checkAnswer(answer: unknown, i: number): void {
  const where = `answers[${i}]`;
  if (typeof answer !== 'object' || answer === null) throw invalidParams(`${where}: must be an object`);
  // A `message` may carry its own `fault` (cut, stall, malformed chunk, ...): it is not a second kind.
  const kinds = KINDS.filter((kind) => kind in answer && !(kind === 'fault' && 'message' in answer));
  if (kinds.length !== 1) throw invalidParams(`${where}: must have exactly one of ${KINDS.join(', ')}`);
  const a = answer as Record<string, unknown>;
  if ('chunks' in a && !Array.isArray(a.chunks)) throw invalidParams(`${where}.chunks: must be an array`);
  if ('error' in a) {
    const status = (a.error as { status?: unknown } | null)?.status;
    if (!Number.isInteger(status) || (status as number) < 400 || (status as number) > 599) {
      throw invalidParams(`${where}.error.status: must be an HTTP error status (400-599)`);
    }
  }
  if ('fault' in a) checkFault(a.fault as never, `${where}.fault`);
}
