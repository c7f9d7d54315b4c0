import { SvcError } from '../../transport/errors/svc-error.js';

/** A serialised run state that cannot be read back (unknown `$schemaVersion`, bad shape, tools the agent lacks). */
export class RunStateError extends SvcError {}
