import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { RunConflictError } from '../../src/agent/errors.js';
import { isTransientInfrastructureError } from '../../src/queue/is-transient-infrastructure-error.js';
import { QueueUnavailableError, WorkerClosedError } from '../../src/queue/queue-errors.js';
import { SvcError } from '../../src/transport/errors.js';
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

describe('isTransientInfrastructureError', () => {
  it('should follow an error that says whether it is transient, whatever its cause', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(isTransientInfrastructureError(new FlaggedError(true))).toBe(true);
    expect(isTransientInfrastructureError(new FlaggedError(false, reset))).toBe(false);
    expect(
      isTransientInfrastructureError(new QueueUnavailableError({ runId: 'r', operation: 'enqueue' })),
    ).toBe(true);
    expect(isTransientInfrastructureError(new WorkerClosedError())).toBe(false);
  });

  it('should recognise connection codes and PostgreSQL connection states, also as a cause', () => {
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTCONN', '57P01', '08006']) {
      expect(isTransientInfrastructureError(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
    const wrapped = new Error('checkpoint failed', {
      cause: Object.assign(new Error('x'), { code: '57P03' }),
    });
    expect(isTransientInfrastructureError(wrapped)).toBe(true);
  });

  it("should leave the caller's and the model's errors alone", () => {
    expect(isTransientInfrastructureError(new RunConflictError({ runId: 'r' }))).toBe(false);
    expect(isTransientInfrastructureError(Object.assign(new Error('syntax'), { code: '42601' }))).toBe(false);
    expect(isTransientInfrastructureError(new TypeError('Cannot read properties of undefined'))).toBe(false);
    expect(isTransientInfrastructureError('ECONNRESET')).toBe(false);
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
        expect(isTransientInfrastructureError(error)).toBe(true);
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
        expect(isTransientInfrastructureError(error)).toBe(true);
      } finally {
        await pool.end();
        await proxy.close();
      }
    });
  });
});
