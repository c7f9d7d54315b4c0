import { describe, expect, it } from 'vitest';
import { SvcClient } from '../../../src/api/svc-client.js';
import { demoAgentTools } from '../../../src/cli/demo/demo-agent.js';
import type { Tool } from '../../../src/tools/tool.js';

describe('demoAgentTools', () => {
  describe('when built for chat, serve and worker', () => {
    it('should ask a person before upload_file sends a local file out', () => {
      const client = new SvcClient({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9' });
      const upload = demoAgentTools(client, process.cwd()).find(
        (tool): tool is Tool => 'name' in tool && tool.name === 'upload_file',
      );
      expect(upload?.needsApproval).toBe(true);
    });
  });
});
