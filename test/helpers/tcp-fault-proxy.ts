import { connect, createServer, type Server, type Socket } from 'node:net';

/** Where the proxy forwards to. */
export interface ProxyTarget {
  host: string;
  port: number;
}

/** Decides, from one chunk the client sent, whether a fault applies to it. */
export type ChunkMatcher = (chunk: Buffer) => boolean;

/**
 * A TCP proxy between code under test and a real server (Redis, PostgreSQL), with faults the network
 * really has: a reset connection, a reply lost after the server acted on the request, a stall with the
 * sockets left open, and an outage that refuses new connections. The shared services are never touched:
 * only the proxy's own sockets are cut.
 */
export interface TcpFaultProxy {
  /** The port the proxy listens on (127.0.0.1). */
  readonly port: number;
  /** Connections currently open through the proxy. */
  readonly openConnections: number;
  /** How many connections the proxy has accepted since it started. */
  readonly acceptedConnections: number;
  /** Resets (RST) every open connection, both sides. */
  resetAll(): void;
  /** Stops forwarding in both directions, keeping every socket open (a half-dead network). */
  stall(): void;
  /** Ends a stall: what was held back is forwarded. */
  resume(): void;
  /** While on, new connections are reset at once (the server is unreachable). */
  setRefusing(refusing: boolean): void;
  /**
   * The next client chunk that `match` accepts is forwarded to the server, and the server's reply to it is
   * dropped: the client's connection is reset as the reply arrives. Resolves when the fault fired.
   */
  dropReplyTo(match: ChunkMatcher): Promise<void>;
  /** The next client chunk that `match` accepts is not forwarded: its connection is reset instead. */
  resetBefore(match: ChunkMatcher): Promise<void>;
  /** The next client chunk that `match` accepts is forwarded, then every connection stalls. */
  stallAfter(match: ChunkMatcher): Promise<void>;
  /** Stops listening and resets every connection. */
  close(): Promise<void>;
}

interface Pipe {
  client: Socket;
  upstream: Socket;
  held: { to: Socket; chunk: Buffer }[];
  /** Set when the reply to the last forwarded chunk must be dropped. */
  dropReply?: (() => void) | undefined;
}

interface PendingFault {
  kind: 'drop-reply' | 'reset-before' | 'stall-after';
  match: ChunkMatcher;
  fired: () => void;
}

/** Starts a fault proxy on 127.0.0.1 (a free port) in front of `target`. */
export async function startTcpFaultProxy(target: ProxyTarget): Promise<TcpFaultProxy> {
  const pipes = new Set<Pipe>();
  const faults: PendingFault[] = [];
  let stalled = false;
  let refusing = false;
  let accepted = 0;

  const kill = (pipe: Pipe) => {
    pipes.delete(pipe);
    for (const socket of [pipe.client, pipe.upstream]) {
      if (!socket.destroyed) socket.resetAndDestroy();
    }
  };

  const forward = (pipe: Pipe, to: Socket, chunk: Buffer) => {
    if (stalled) pipe.held.push({ to, chunk });
    else if (!to.destroyed) to.write(chunk);
  };

  const takeFault = (chunk: Buffer): PendingFault | undefined => {
    const index = faults.findIndex((fault) => fault.match(chunk));
    return index === -1 ? undefined : faults.splice(index, 1)[0];
  };

  const server: Server = createServer((client) => {
    accepted++;
    if (refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target);
    const pipe: Pipe = { client, upstream, held: [] };
    pipes.add(pipe);
    client.on('data', (chunk: Buffer) => {
      const fault = takeFault(chunk);
      if (fault?.kind === 'reset-before') {
        kill(pipe);
        fault.fired();
        return;
      }
      if (fault?.kind === 'drop-reply') pipe.dropReply = fault.fired;
      forward(pipe, upstream, chunk);
      if (fault?.kind === 'stall-after') {
        stalled = true;
        fault.fired();
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (pipe.dropReply) {
        const fired = pipe.dropReply;
        delete pipe.dropReply;
        kill(pipe);
        fired();
        return;
      }
      forward(pipe, client, chunk);
    });
    const end = () => kill(pipe);
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fault proxy: no port');

  const addFault = (kind: PendingFault['kind'], match: ChunkMatcher) =>
    new Promise<void>((fired) => faults.push({ kind, match, fired }));

  return {
    port: address.port,
    get openConnections() {
      return pipes.size;
    },
    get acceptedConnections() {
      return accepted;
    },
    resetAll() {
      for (const pipe of [...pipes]) kill(pipe);
    },
    stall() {
      stalled = true;
    },
    resume() {
      stalled = false;
      for (const pipe of pipes) {
        for (const { to, chunk } of pipe.held.splice(0)) if (!to.destroyed) to.write(chunk);
      }
    },
    setRefusing(value) {
      refusing = value;
    },
    dropReplyTo: (match) => addFault('drop-reply', match),
    resetBefore: (match) => addFault('reset-before', match),
    stallAfter: (match) => addFault('stall-after', match),
    async close() {
      for (const pipe of [...pipes]) kill(pipe);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A matcher for client chunks that contain `text`, ignoring case (a Redis command name, a SQL keyword). */
export function chunkContains(text: string): ChunkMatcher {
  const needle = text.toLowerCase();
  return (chunk) => chunk.toString('latin1').toLowerCase().includes(needle);
}
