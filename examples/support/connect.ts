import { type EmulatorOptions, startEmulator } from '../../src/emulator/index.js';
import { SvcClient, type SvcClientOptions } from '../../src/index.js';

/** A client for an example, and how to let go of it. */
export interface ExampleConnection {
  client: SvcClient;
  /** True when the local emulator answers instead of the real service. */
  emulated: boolean;
  close(): Promise<void>;
}

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** Client options (retries, timeout, ...), used with the real service and the emulator alike. */
  client?: SvcClientOptions;
  /** Emulator options (faults, ...), used only when the emulator answers. */
  emulator?: EmulatorOptions;
}

/**
 * The real service when SVC_API_KEY or SVC_BASE_URL is set (read by `new SvcClient()`); otherwise the svc
 * emulator, started in this process, so every example also runs offline.
 */
export async function connect(options: ConnectOptions = {}): Promise<ExampleConnection> {
  if (process.env.SVC_API_KEY || process.env.SVC_BASE_URL) {
    const client = new SvcClient(options.client);
    return { client, emulated: false, close: () => client.close() };
  }
  const emu = await startEmulator({ port: 0, ...options.emulator });
  console.error(`(no SVC_API_KEY / SVC_BASE_URL: using the local emulator at ${emu.baseURL})`);
  const client = new SvcClient({ ...options.client, apiKey: emu.apiKey, baseURL: emu.baseURL });
  return {
    client,
    emulated: true,
    close: async () => {
      await client.close();
      await emu.close();
    },
  };
}
