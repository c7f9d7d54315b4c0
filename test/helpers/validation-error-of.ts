import { RequestValidationError } from '../../src/api/errors.js';

/** Runs `run` and returns the `type` error it throws; fails the test when it throws nothing or another error. */
export function thrownError<E>(type: new (...args: never[]) => E, run: () => unknown): E {
  try {
    run();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}, but nothing was thrown`);
}

/** Runs `validate` and returns the RequestValidationError it throws; fails the test when it passes. */
export function validationErrorOf(validate: () => void): RequestValidationError {
  return thrownError(RequestValidationError, validate);
}

/** The `path: rule` lines of the error `validate` throws. */
export function issueLinesOf(validate: () => void): string[] {
  return validationErrorOf(validate).message.split('\n');
}
