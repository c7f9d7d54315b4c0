import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { RunConflictError } from '../../src/agent/errors.js';
import { SvcError } from '../../src/core/errors.js';
import { QueueUnavailableError, WorkerClosedError } from '../../src/queue/queue-errors.js';
import { isTransient, isTransientSqlState } from '../../src/stores/is-transient.js';
import { POSTGRES_URL, REDIS_URL } from '../helpers/infra-services.js';
import { queueBackends } from '../helpers/queue-backends.js';
import { startTcpFaultProxy } from '../helpers/tcp-fault-proxy.js';

const [redis, postgres] = queueBackends;

/** An error that says whether it is transient, as the stores' connection errors do. */
class FlaggedError extends SvcError {
  constructor(
    readonly transient: boolean,
    cause?: unknown,
  ) {
    super('flagged', { cause });
  }
}

describe('isTransient', () => {
  it('should follow an error that says whether it is transient, whatever its cause', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(isTransient(new FlaggedError(true))).toBe(true);
    expect(isTransient(new FlaggedError(false, reset))).toBe(false);
    expect(isTransient(new QueueUnavailableError({ runId: 'r', operation: 'enqueue' }))).toBe(true);
    expect(isTransient(new WorkerClosedError())).toBe(false);
  });

  it('should agree with the stores on PostgreSQL codes: too many connections (53300) is transient', () => {
    // The worker retries what postgresStore wraps as unavailable: one table decides both.
    expect(isTransient(Object.assign(new Error('sorry, too many clients already'), { code: '53300' }))).toBe(
      true,
    );
    for (const code of ['53300', '57014', '08006', '57P01'])
      expect(isTransientSqlState(code), code).toBe(true);
    for (const code of ['42601', '23505', '40001']) expect(isTransientSqlState(code), code).toBe(false);
  });

  it('should recognise connection codes and PostgreSQL connection states, also as a cause', () => {
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTCONN', '57P01', '08006']) {
      expect(isTransient(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
    const wrapped = new Error('checkpoint failed', {
      cause: Object.assign(new Error('x'), { code: '57P03' }),
    });
    expect(isTransient(wrapped)).toBe(true);
  });

  it("should leave the caller's and the model's errors alone", () => {
    expect(isTransient(new RunConflictError({ runId: 'r' }))).toBe(false);
    expect(isTransient(Object.assign(new Error('syntax'), { code: '42601' }))).toBe(false);
    expect(isTransient(new TypeError('Cannot read properties of undefined'))).toBe(false);
    expect(isTransient('ECONNRESET')).toBe(false);
  });

  describe.skipIf(!redis?.available)('on a Redis that is unreachable', () => {
    it('should recognise ioredis giving a command up', async () => {
      const proxy = await startTcpFaultProxy({
        host: '127.0.0.1',
        port: Number(new URL(REDIS_URL).port || 6379),
      });
      proxy.setRefusing(true);
      const client = new Redis({ host: '127.0.0.1', port: proxy.port, maxRetriesPerRequest: 1 });
      client.on('error', () => undefined);
      try {
        const error = await client.get('any').catch((caught: unknown) => caught);
        expect((error as Error).name).toBe('MaxRetriesPerRequestError');
        expect(isTransient(error)).toBe(true);
      } finally {
        client.disconnect();
        await proxy.close();
      }
    });
  });

  describe.skipIf(!postgres?.available)('on a PostgreSQL that is unreachable', () => {
    it('should recognise a refused connection', async () => {
      const proxy = await startTcpFaultProxy({
        host: '127.0.0.1',
        port: Number(new URL(POSTGRES_URL).port || 5432),
      });
      proxy.setRefusing(true);
      const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${proxy.port}/test` });
      pool.on('error', () => undefined);
      try {
        const error = await pool.query('SELECT 1').catch((caught: unknown) => caught);
        expect(isTransient(error)).toBe(true);
      } finally {
        await pool.end();
        await proxy.close();
      }
    });
  });
});
