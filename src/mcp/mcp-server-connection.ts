import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_TOOL_TIMEOUT_MS } from '../tools/define-tool.js';
import type { Tool } from '../tools/tool.js';
import { McpConnectionError } from './errors.js';
import type { McpCallResult } from './mcp-result-text.js';
import { mcpSdk } from './mcp-sdk.js';
import type { McpHttpOptions, McpServerOptions } from './mcp-server-options.js';
import { toAgentTools } from './to-agent-tools.js';

const clientInfo = { name: 'svc-agents', version: '0.1.0' };

/**
 * Connects to an MCP server (spawned over stdio, or over Streamable HTTP with the legacy SSE transport as
 * fallback), lists its tools and turns each into an agent tool.
 * @example
 * const files = await connectMcpServer({ command: 'node', args: ['fs-server.js'], allow: ['read_file'] });
 * const agent = new Agent({ client, model, tools: files.tools });
 * // ...
 * await files.close();
 */
export async function connectMcpServer(options: McpServerOptions): Promise<McpServerConnection> {
  const connection = new McpServerConnection(options);
  await connection.connect();
  return connection;
}

/** A live connection to one MCP server; its `tools` follow the server's list. */
export class McpServerConnection {
  /** The label used in errors. */
  readonly name: string;
  readonly #options: McpServerOptions;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #kind: 'stdio' | 'streamable-http' | 'sse' | undefined;
  #tools: readonly Tool[] = [];
  #infos: readonly McpToolInfo[] = [];
  #reconnecting: Promise<void> | undefined;
  readonly #retired = new WeakSet<Client>();
  #closed = false;

  /** Prefer `connectMcpServer`, which also connects. */
  constructor(options: McpServerOptions) {
    this.#options = options;
    this.name = options.name ?? ('command' in options ? options.command : String(options.url));
  }

  /** The server's tools as agent tools, filtered and named as configured; replaced when the list changes. */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** The server's tool descriptions as it sent them (after `allow`/`deny`). */
  get mcpTools(): readonly McpToolInfo[] {
    return this.#infos;
  }

  /** `stdio`, `streamable-http` or `sse` once connected. */
  get transport(): 'stdio' | 'streamable-http' | 'sse' | undefined {
    return this.#kind;
  }

  /** The child's process id (stdio only). */
  get pid(): number | undefined {
    return this.#transport instanceof mcpSdk().StdioClientTransport
      ? (this.#transport.pid ?? undefined)
      : undefined;
  }

  /** Performs the MCP handshake and lists the tools; called by `connectMcpServer`. */
  async connect(): Promise<void> {
    await this.#open();
    try {
      await this.refresh();
    } catch (error) {
      // A tool list we cannot use (a bad name) must not leave a child process or session behind.
      await this.close();
      throw error;
    }
  }

  /** Lists the server's tools again and returns the new agent tools. */
  refresh(): Promise<readonly Tool[]> {
    return this.#refresh(true);
  }

  async #refresh(reinitialise: boolean): Promise<readonly Tool[]> {
    const infos = await this.#withSession(async (client) => {
      const all: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        all.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return all;
    }, reinitialise);
    this.#setTools(infos);
    return this.#tools;
  }

  /** Calls a tool by its name on the server; a 404 for an expired HTTP session re-initialises once. */
  callTool(
    mcpName: string,
    args: Record<string, unknown>,
    { signal, timeoutMs }: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined } = {},
  ): Promise<McpCallResult> {
    const timeout = (timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS) + 5_000;
    return this.#withSession(
      (client) =>
        client.callTool({ name: mcpName, arguments: args }, undefined, {
          ...(signal ? { signal } : {}),
          timeout,
        }) as Promise<McpCallResult>,
    );
  }

  /** Ends the session (HTTP `DELETE`) or the child process. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#shutdown();
  }

  #setTools(infos: readonly McpToolInfo[]): void {
    const { allow, deny } = this.#options;
    const kept = infos.filter(
      (info) => (allow === undefined || allow.includes(info.name)) && !deny?.includes(info.name),
    );
    this.#tools = toAgentTools(this, kept, this.#options);
    this.#infos = kept;
  }

  async #withSession<T>(run: (client: Client) => Promise<T>, reinitialise = true): Promise<T> {
    // An earlier re-initialisation failed (the server was down): each new call tries once more.
    if (!this.#client && !this.#closed && this.#kind === 'streamable-http' && reinitialise)
      await this.#reconnect();
    const client = this.#requireClient();
    try {
      return await run(client);
    } catch (error) {
      // A call on the session being replaced fails with 404 or, once its client is closed, "connection
      // closed"; either way the dead session never ran it, so it is retried on the new one.
      const retired = this.#retired.has(client);
      if (!reinitialise) throw error;
      if (!retired && !(this.#kind === 'streamable-http' && isSessionGone(error))) throw error;
      // Several calls may meet the dead session at once: one re-initialises, the others wait and retry.
      if (this.#client === client) {
        this.#retired.add(client);
        await this.#reconnect();
      } else {
        await this.#reconnecting;
      }
      return run(this.#requireClient());
    }
  }

  #reconnect(): Promise<void> {
    this.#reconnecting ??= this.#reopen().finally(() => {
      this.#reconnecting = undefined;
    });
    return this.#reconnecting;
  }

  async #reopen(): Promise<void> {
    await this.#shutdown(false);
    // The server spoke Streamable HTTP: a failed handshake now is no reason to try legacy SSE.
    await this.#open('streamable-http');
    // The fresh session lists the tools once; a 404 here too means the server keeps losing sessions.
    await this.#refresh(false);
  }

  #requireClient(): Client {
    if (this.#closed)
      throw new McpConnectionError({ server: this.name, message: 'the connection is closed' });
    if (!this.#client) throw new McpConnectionError({ server: this.name, message: 'not connected' });
    return this.#client;
  }

  async #open(known?: 'streamable-http'): Promise<void> {
    const options = this.#options;
    if ('command' in options) {
      await this.#start('stdio', () => {
        const env = options.env ? { ...mcpSdk().getDefaultEnvironment(), ...options.env } : undefined;
        return new (mcpSdk().StdioClientTransport)({
          command: options.command,
          args: [...(options.args ?? [])],
          ...(env ? { env } : {}),
          ...(options.cwd ? { cwd: options.cwd } : {}),
          stderr: options.stderr ?? 'inherit',
        });
      });
      return;
    }
    const mode = known ?? options.transport ?? 'auto';
    if (mode === 'sse') return this.#start('sse', () => sseTransport(options));
    try {
      await this.#start('streamable-http', () => streamableTransport(options));
    } catch (error) {
      // A legacy server answers the Streamable HTTP `initialize` POST with 404 or 405.
      const code = error instanceof mcpSdk().StreamableHTTPError ? error.code : undefined;
      if (mode !== 'auto' || code === undefined || code < 400 || code >= 500) throw this.#connectError(error);
      await this.#start('sse', () => sseTransport(options));
    }
  }

  async #start(kind: 'stdio' | 'streamable-http' | 'sse', createTransport: () => Transport): Promise<void> {
    const client = new (mcpSdk().Client)(clientInfo, {
      capabilities: {},
      listChanged: {
        tools: {
          autoRefresh: true,
          debounceMs: 50,
          onChanged: (error, tools) => this.#onListChanged(client, error, tools),
        },
      },
    });
    const transport = createTransport();
    try {
      await client.connect(transport);
    } catch (error) {
      await client.close().catch(() => {});
      if (kind === 'streamable-http' && error instanceof mcpSdk().StreamableHTTPError) throw error;
      throw this.#connectError(error);
    }
    this.#client = client;
    this.#transport = transport;
    this.#kind = kind;
  }

  #onListChanged(client: Client, error: Error | null, tools: McpToolInfo[] | null): void {
    if (client !== this.#client || this.#closed) return;
    try {
      if (error) throw error;
      this.#setTools(tools ?? []);
      this.#options.onToolsChanged?.(this.#tools);
    } catch (failure) {
      this.#options.onError?.(failure instanceof Error ? failure : new Error(String(failure)));
    }
  }

  async #shutdown(terminate = true): Promise<void> {
    const client = this.#client;
    const transport = this.#transport;
    this.#client = undefined;
    this.#transport = undefined;
    if (terminate && transport instanceof mcpSdk().StreamableHTTPClientTransport && transport.sessionId) {
      await transport.terminateSession().catch(() => {});
    }
    await client?.close().catch(() => {});
  }

  #connectError(error: unknown): McpConnectionError {
    const message = error instanceof Error ? error.message : String(error);
    return new McpConnectionError({
      server: this.name,
      message: `could not connect (${message})`,
      cause: error,
    });
  }
}

function isSessionGone(error: unknown): boolean {
  return error instanceof mcpSdk().StreamableHTTPError && error.code === 404;
}

function requestInit(options: McpHttpOptions): { requestInit?: RequestInit } {
  return options.headers ? { requestInit: { headers: { ...options.headers } } } : {};
}

function streamableTransport(options: McpHttpOptions): Transport {
  return new (mcpSdk().StreamableHTTPClientTransport)(new URL(options.url), requestInit(options));
}

function sseTransport(options: McpHttpOptions): Transport {
  return new (mcpSdk().SSEClientTransport)(new URL(options.url), requestInit(options));
}
