import { describe, expect, it } from 'vitest';
import { SvcClient } from '../../../src/api/svc-client.js';
import { chatTools } from '../../../src/cli/chat/chat-tools.js';
import type { Tool } from '../../../src/tools/tool.js';

describe('chatTools', () => {
  describe('when built for `svc-agents chat`', () => {
    it('should ask a person before upload_file sends a local file out', () => {
      const client = new SvcClient({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9' });
      const upload = chatTools(client, process.cwd()).find(
        (tool): tool is Tool => 'name' in tool && tool.name === 'upload_file',
      );
      expect(upload?.needsApproval).toBe(true);
    });
  });
});
