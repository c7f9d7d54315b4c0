import { Redis } from 'ioredis';
import pg from 'pg';
import type { Store } from '../../src/agent/durable/store.js';
import type { QueueConnection } from '../../src/queue/queue-connection.js';
import { postgresStore } from '../../src/stores/postgres-store.js';
import { redisStore } from '../../src/stores/redis-store.js';
import { POSTGRES_URL, REDIS_URL } from './infra-services.js';
import type { QueueBackend, QueueNamespace } from './queue-backends.js';
import { startTcpFaultProxy, type TcpFaultProxy } from './tcp-fault-proxy.js';

/** A test's queue and store, each reached through its own fault proxy in front of the shared service. */
export interface ProxiedNamespace {
  /** The same queue and store without the proxies (to look at them while a fault is on). */
  direct: QueueNamespace;
  /** The queue's connection, through `queueProxy`. */
  connection: QueueConnection;
  queueName: string;
  /** The store, through `storeProxy` (its ioredis client gives a command up after one reconnect). */
  store: Store;
  queueProxy: TcpFaultProxy;
  storeProxy: TcpFaultProxy;
  /** Both proxies refuse and reset every connection (the service is down) or serve again. */
  setOutage(down: boolean): void;
  cleanup(): Promise<void>;
}

/** Creates a namespace of `backend` whose queue and store connections both go through fault proxies. */
export async function createProxiedNamespace(backend: QueueBackend): Promise<ProxiedNamespace> {
  const direct = backend.create();
  const target = new URL(backend.name === 'redis' ? REDIS_URL : POSTGRES_URL);
  const port = Number(target.port || (backend.name === 'redis' ? 6379 : 5432));
  const [queueProxy, storeProxy] = await Promise.all([
    startTcpFaultProxy({ host: '127.0.0.1', port }),
    startTcpFaultProxy({ host: '127.0.0.1', port }),
  ]);
  const via = (proxy: TcpFaultProxy) => {
    const url = new URL(target);
    url.port = String(proxy.port);
    return url.toString();
  };
  let connection: QueueConnection;
  let store: Store;
  let closeClient: () => Promise<unknown>;
  // The store gets a client of the test's own, with an error listener: how the store itself handles a
  // dropped connection is not what these tests are about.
  if (backend.name === 'redis') {
    connection = via(queueProxy);
    const client = new Redis({ host: '127.0.0.1', port: storeProxy.port, maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    closeClient = () => client.quit().catch(() => client.disconnect());
    store = redisStore({ client, prefix: direct.storeOptions.prefix ?? '' });
  } else {
    const { schema } = direct.connection as { schema: string };
    connection = { postgres: via(queueProxy), schema };
    const pool = new pg.Pool({ connectionString: via(storeProxy) });
    pool.on('error', () => undefined);
    closeClient = () => pool.end();
    store = postgresStore({ pool, schema: direct.storeOptions.schema ?? '' });
  }
  return {
    direct,
    connection,
    queueName: direct.queueName,
    store,
    queueProxy,
    storeProxy,
    setOutage(down) {
      for (const proxy of [queueProxy, storeProxy]) {
        proxy.setRefusing(down);
        if (down) proxy.resetAll();
      }
    },
    async cleanup() {
      for (const proxy of [queueProxy, storeProxy]) proxy.setRefusing(false);
      await store.close?.().catch(() => undefined);
      await closeClient().catch(() => undefined);
      await Promise.all([queueProxy.close(), storeProxy.close()]);
      await direct.cleanup();
    },
  };
}
