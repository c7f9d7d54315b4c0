import { SvcError } from '../../transport/errors/svc-error.js';

/** A message-part helper got input it cannot turn into a part the service accepts (format, scheme, file). */
export class PartInputError extends SvcError {
  /** Which helper refused the input, e.g. `imagePart`. */
  readonly helper: string;

  constructor(helper: string, message: string, options?: { cause?: unknown }) {
    super(`${helper}: ${message}`, options);
    this.helper = helper;
  }
}
