import { APIError, UserError } from '../core/errors.js';

/**
 * A request in replay mode that no recording answers: in replay the recording is the service, and it has
 * no answer (an `APIError` with no status, never retried). The message shows the closest recorded request
 * and how the new one differs, so a changed prompt reads as a diff.
 */
export class ReplayMissError extends APIError {
  /** The cassette that was searched. */
  readonly cassette: string;

  constructor(message: string, { cassette }: { cassette: string }) {
    super(message);
    this.name = 'ReplayMissError';
    this.cassette = cassette;
  }
}

/** `assertComplete()` found scripted answers the run never asked for: it made fewer model requests than scripted. */
export class ScriptNotConsumedError extends UserError {
  /** Answers left in the queue. */
  readonly remaining: number;

  constructor(remaining: number, scripted: number) {
    super(
      `${remaining} of ${scripted} scripted answers were not used: the run made ${scripted - remaining} model requests`,
    );
    this.name = 'ScriptNotConsumedError';
    this.remaining = remaining;
  }
}
