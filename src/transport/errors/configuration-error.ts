import { SvcError } from './svc-error.js';

/** A client option is missing or invalid (e.g. no API key); thrown at construction, before any request. */
export class ConfigurationError extends SvcError {
  /** The option at fault, e.g. `apiKey`. */
  readonly option: string;

  constructor(option: string, message: string) {
    super(`${option}: ${message}`);
    this.option = option;
  }
}
