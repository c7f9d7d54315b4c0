// An agents module for `svc-agents worker --agents` in test/cli/user-modules.integration.test.ts: TypeScript on purpose.
import { Agent, SvcClient } from '../../../src/index.js';

const client: SvcClient = new SvcClient({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9' });

export const agents: Record<string, Agent<unknown, unknown>> = {
  greeter: new Agent({ client, model: 'svc-3.5-flash', instructions: 'Greet.' }),
};
