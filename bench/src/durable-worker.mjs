// A worker process of bench/src/durable.mjs: the weather agent on the built package, until killed.

import { z } from 'zod';
import { Agent, defineTool, SvcClient } from '../../dist/index.js';
import { startWorker } from '../../dist/queue/index.js';
import { postgresStore, redisStore } from '../../dist/stores/index.js';

const config = JSON.parse(process.env.BENCH_CONFIG);
const client = new SvcClient({ apiKey: process.env.BENCH_API_KEY, baseURL: config.baseURL });
const weather = defineTool({
  name: 'get_weather',
  description: 'Get the weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, temperatureC: 14 }),
});
const agent = new Agent({ client, model: 'svc-3.5-flash', tools: [weather] });
const store =
  config.backend === 'redis'
    ? redisStore({ url: config.url, prefix: config.prefix })
    : postgresStore({ connectionString: config.url, schema: config.schema });
await startWorker({
  connection: config.connection,
  store,
  agents: { weather: agent },
  name: config.queueName,
  concurrency: 8,
});
// bench/src/durable.mjs --profile ends a worker this way, so its CPU profile is written.
process.on('message', (message) => {
  if (message === 'exit') process.exit(0);
});
process.send('ready');
