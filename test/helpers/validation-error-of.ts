import { RequestValidationError } from '../../src/api/errors/request-validation-error.js';

/** Runs `validate` and returns the RequestValidationError it throws; fails the test when it passes. */
export function validationErrorOf(validate: () => void): RequestValidationError {
  try {
    validate();
  } catch (error) {
    if (error instanceof RequestValidationError) return error;
    throw error;
  }
  throw new Error('expected a RequestValidationError, but the request passed validation');
}

/** The `path: rule` lines of the error `validate` throws. */
export function issueLinesOf(validate: () => void): string[] {
  return validationErrorOf(validate).message.split('\n');
}
