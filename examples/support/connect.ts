import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { EmulatorOptions } from '../../src/emulator/types.js';

/** A client for an example, and how to let go of it. */
export interface ExampleConnection {
  client: SvcClient;
  /** True when the local emulator answers instead of the real service. */
  emulated: boolean;
  close(): Promise<void>;
}

/**
 * The real service when SVC_API_KEY or SVC_BASE_URL is set (read by `new SvcClient()`); otherwise the svc
 * emulator, started in this process, so every example also runs offline. `emulator` options (faults, ...)
 * apply only to the emulator.
 */
export async function connect(emulator: EmulatorOptions = {}): Promise<ExampleConnection> {
  if (process.env.SVC_API_KEY || process.env.SVC_BASE_URL) {
    const client = new SvcClient();
    return { client, emulated: false, close: () => client.close() };
  }
  const emu = await startEmulator({ port: 0, ...emulator });
  console.error(`(no SVC_API_KEY / SVC_BASE_URL: using the local emulator at ${emu.baseURL})`);
  const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL });
  return {
    client,
    emulated: true,
    close: async () => {
      await client.close();
      await emu.close();
    },
  };
}
