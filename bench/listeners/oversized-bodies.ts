/**
 * Memory a server spends on bodies it refuses: a 256 MiB chunked POST to createChatHandler's /api/chat
 * (limit 4 MiB) and three 120 MB unauthenticated uploads to the emulator. Prints RSS before and after.
 * Run: node --expose-gc --import tsx bench/listeners/oversized-bodies.ts
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from '../../src/agent/agent.js';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import { createChatHandler } from '../../src/web/create-chat-handler.js';

const mb = () => Math.round(process.memoryUsage().rss / 1024 / 1024);
function post(port: number, path: string, total: number, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ port, host: '127.0.0.1', path, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(-1));
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}
const emu = await startEmulator({ port: 0 });
const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL });
const chat = createChatHandler({ agent: new Agent({ client, model: 'svc-3.5-flash' }), onError: () => {} });
const server = createServer((req, res) => chat.node(req, res));
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;
(globalThis as { gc?: () => void }).gc?.();
const before = mb();
const status = await post(port, '/api/chat', 256 * 1024 * 1024);
(globalThis as { gc?: () => void }).gc?.();
console.log(`createChatHandler 256 MiB chunked /api/chat: status ${status}, RSS ${before} -> ${mb()} MB`);
const b2 = mb();
const statuses: number[] = [];
for (let i = 0; i < 3; i++) statuses.push(await post(emu.port, '/v1/files', 120 * 1024 * 1024, { 'content-type': 'multipart/form-data; boundary=x' }));
(globalThis as { gc?: () => void }).gc?.();
console.log(`emulator 3 x 120 MB unauthenticated POST /v1/files: statuses ${statuses}, RSS ${b2} -> ${mb()} MB`);
server.close(); chat.close(); await client.close(); await emu.close();
process.exit(0);
