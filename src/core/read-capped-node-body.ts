import type { IncomingMessage } from 'node:http';

/**
 * The body of a Node request, or `undefined` once it passes `maxBytes` (declared in `content-length` or
 * sent): reading stops there instead of buffering whatever a client sends. Shared by the servers that
 * read Node requests themselves (the emulator, MCP over HTTP); each answers the `undefined` with its 413.
 */
export function readCappedNodeBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      // Paused, not destroyed: the 413 still has to be written on this connection.
      req.off('data', onData);
      req.pause();
      resolve(undefined);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
