/**
 * Durable runs on a queue: a client enqueues runs, worker processes run them, a human approves a refund
 * after the worker that paused it has died, and a run whose worker is killed mid-tool is resumed by
 * another worker from its last checkpoint. Runs are kept in a file store; the queue is BullMQ on Redis.
 * Run: npx tsx examples/durable-workflow.ts   (needs Redis: redis-server --port 6379, or SVC_REDIS_URL)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { startEmulator } from '../src/emulator/index.js';
import { Agent, defineTool } from '../src/index.js';
import { RunQueue, startWorker } from '../src/queue/index.js';
import { fileStore } from '../src/stores/index.js';
import { connect } from './support/connect.js';

const redis = process.env.SVC_REDIS_URL ?? 'redis://127.0.0.1:6379';
// One queue per run of this example (the worker processes are told its name).
const queueName = process.env.DURABLE_QUEUE ?? `durable-example-${process.pid}`;

if (process.argv[2] === 'worker') {
  // ---- A worker process: the agent, its tools, and startWorker. ----
  const { client } = await connect();
  const lookupOrder = defineTool({
    name: 'lookup_order',
    description: 'Look up an order.',
    parameters: z.object({ orderId: z.number().int() }),
    idempotent: true, // reading twice is harmless: may run again after a crash
    execute: ({ orderId }) => ({ orderId, total: 49.9, status: 'delivered, damaged' }),
  });
  const refundOrder = defineTool({
    name: 'refund_order',
    description: 'Refund an order.',
    parameters: z.object({ orderId: z.number().int() }),
    needsApproval: true,
    execute: ({ orderId }, ctx) => ({ orderId, refunded: true, idempotencyKey: ctx.idempotencyKey }),
  });
  const writeReport = defineTool({
    name: 'write_report',
    description: 'Write a report and email it to the team.',
    parameters: z.object({}),
    // Sends an email: not idempotent, so after a crash the model is told instead of mailing twice.
    execute: () => new Promise((resolve) => setTimeout(() => resolve('report sent'), 2_000)),
  });
  const support = new Agent({
    client,
    model: 'svc-3.5-flash',
    tools: [lookupOrder, refundOrder, writeReport],
  });
  await startWorker({
    connection: redis,
    store: fileStore({ dir: process.argv[3]! }),
    agents: { support },
    name: queueName,
    // Short locks so this demo notices a killed worker within seconds (the default is 30 s).
    lockDurationMs: 1_000,
  });
  process.send?.('ready');
  // A worker of this demo lives only as long as the process that started it.
  process.once('disconnect', () => process.exit(0));
} else {
  // ---- The client process: enqueue, follow, approve. ----
  // Workers talk to the service named by SVC_BASE_URL / SVC_API_KEY; without them, to a local emulator.
  const env: NodeJS.ProcessEnv = { ...process.env, DURABLE_QUEUE: queueName };
  let closeEmulator = async () => {};
  if (!env.SVC_API_KEY && !env.SVC_BASE_URL) {
    const emu = await startEmulator({ port: 0 });
    console.error(`(no SVC_API_KEY / SVC_BASE_URL: using the local emulator at ${emu.baseURL})`);
    Object.assign(env, { SVC_BASE_URL: emu.baseURL, SVC_API_KEY: emu.apiKey });
    closeEmulator = emu.close;
  }
  const dir = await mkdtemp(join(tmpdir(), 'svc-durable-'));
  const store = fileStore({ dir });
  const queue = new RunQueue({ connection: redis, store, name: queueName });
  const startWorkerProcess = (): Promise<ChildProcess> =>
    new Promise((resolve, reject) => {
      const child = fork(fileURLToPath(import.meta.url), ['worker', dir], { env, stdio: 'inherit' });
      child.once('message', () => resolve(child));
      child.once('exit', (code) => reject(new Error(`worker exited with code ${code} before it was ready`)));
    });

  let worker = await startWorkerProcess();
  console.log(`worker ${worker.pid} started`);

  // 1. A run pauses for approval; its worker dies; a human approves later; another worker finishes it.
  const refundRun = await queue.enqueue('support', 'Refund order 1001, it arrived damaged.', {
    session: 'customer-7',
  });
  const paused = await queue.waitUntilFinished(refundRun);
  const waiting = paused.interruptions[0]!;
  console.log(
    `run ${refundRun} is ${paused.status}: ${waiting.toolName} ${JSON.stringify(waiting.input)} waits`,
  );
  worker.kill('SIGKILL');
  console.log(`worker ${worker.pid} crashed (SIGKILL)`);
  worker = await startWorkerProcess();
  console.log(`worker ${worker.pid} started`);
  await queue.approve(refundRun, waiting.toolCallId); // or: svc-agents runs approve <id> <callId>
  const refunded = await queue.waitUntilFinished(refundRun);
  console.log(`approved; run ${refundRun} is ${refunded.status}: ${refunded.text}`);
  console.log(`session customer-7 holds ${(await store.getItems('customer-7')).length} messages`);

  // 2. A worker is killed while a tool runs; another worker resumes the run from its checkpoint.
  const reportRun = crypto.randomUUID();
  const events = queue.events(reportRun)[Symbol.asyncIterator]();
  const firstEvent = events.next(); // starts following before the run starts (1 s from now), missing nothing
  await queue.enqueue('support', 'Write the weekly report.', { runId: reportRun, delay: 1_000 });
  for (let next = await firstEvent; !next.done; next = await events.next()) {
    if (next.value.type !== 'tool-call') continue;
    await new Promise((resolve) => setTimeout(resolve, 500)); // the call is under way now
    console.log(`worker ${worker.pid} runs ${next.value.toolName}; killing it mid-call`);
    worker.kill('SIGKILL');
    worker = await startWorkerProcess();
    console.log(`worker ${worker.pid} started`);
    await events.return?.();
    break;
  }
  const resumed = await queue.waitUntilFinished(reportRun, { timeout: 30_000 });
  const answer = (resumed.state.messages as Array<{ role: string; content: string }>).find(
    (m) => m.role === 'tool',
  );
  console.log(`run ${reportRun} resumed and ${resumed.status}; the model was told: "${answer?.content}"`);

  worker.kill('SIGTERM');
  await new Promise((resolve) => worker.once('exit', resolve));
  await queue.close();
  await closeEmulator();
  await rm(dir, { recursive: true, force: true });
}
