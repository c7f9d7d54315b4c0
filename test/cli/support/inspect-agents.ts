// An `--agents` module of `svc-agents inspect`: one agent, built per fork with the fork's changes.
import { Agent } from '../../../src/agent/agent.js';
import { SvcClient } from '../../../src/api/svc-client.js';
import type { InspectorAgentContext } from '../../../src/web/inspector/inspector-agents.js';

const client = new SvcClient({ apiKey: process.env.SVC_API_KEY, baseURL: process.env.SVC_BASE_URL });

export const agents = {
  support: ({ changes }: InspectorAgentContext) =>
    new Agent({ name: 'support', client, model: changes.model ?? 'svc-3.5-flash' }),
};
