import type { AgentEvent } from '../agent/events.js';
import type { RunEventLogWriter } from '../stores/run-event-log-writer.js';
import { encodeRunEvent } from './queued-run-events.js';

// The events after which a run has nothing more to say.
const TERMINAL_EVENTS = new Set(['finish', 'error', 'abort']);

/**
 * The events of one attempt of a queued run on their way to the run's stored log (when the store keeps
 * one). With `holdLast`, the run's last event (finish, error, abort) and any after it wait in memory until
 * `releaseHeld`: the worker's observer first settles what the run leaves behind, so a client acting on
 * that event finds it on any server.
 */
export class AttemptEventLog {
  private readonly writer: RunEventLogWriter | undefined;
  private readonly holdLast: boolean;
  private readonly eventLogId: string;
  private readonly onError: (error: unknown) => void;
  private readonly held: AgentEvent[] = [];

  constructor(options: {
    writer: RunEventLogWriter | undefined;
    holdLast: boolean;
    eventLogId: string;
    onError: (error: unknown) => void;
  }) {
    this.writer = options.writer;
    this.holdLast = options.holdLast;
    this.eventLogId = options.eventLogId;
    this.onError = options.onError;
  }

  /** Appends the event, or holds it (see `holdLast`). */
  push(event: AgentEvent): void {
    if (this.holdLast && (this.held.length > 0 || TERMINAL_EVENTS.has(event.type))) this.held.push(event);
    else this.writer?.push(encodeRunEvent(event));
  }

  /** Waits until the events pushed so far are stored; a failure goes to `onError`. */
  async store(): Promise<void> {
    if (this.writer && !(await this.writer.close()))
      this.onError(new Error(`Events of run "${this.eventLogId}" could not be stored`));
  }

  /** Appends the held events and waits until they are stored. */
  async releaseHeld(): Promise<void> {
    if (this.held.length === 0) return;
    for (const event of this.held) this.writer?.push(encodeRunEvent(event));
    await this.store();
  }
}
