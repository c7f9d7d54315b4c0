// An agent module for `svc-agents serve --agent` in test/cli/serve.integration.test.ts.
import { Agent, type SvcClient } from '../../../src/index.js';

export default ({ client }: { client: SvcClient }) =>
  new Agent({ client, model: 'svc-3.5-flash', instructions: 'Answer briefly.' });
