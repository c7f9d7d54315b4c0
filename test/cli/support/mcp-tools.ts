// A tools module for `svc-agents mcp serve --tools` in test/cli/user-modules.integration.test.ts: TypeScript on purpose.
import { z } from 'zod';
import { defineTool } from '../../../src/index.js';

export const shout = defineTool({
  name: 'shout',
  description: 'Says the text in capitals.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }: { text: string }) => text.toUpperCase(),
});
