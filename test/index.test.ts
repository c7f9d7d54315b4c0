import { describe, expect, it } from 'vitest';
import * as emulatorEntry from '../src/emulator/index.js';
import * as mainEntry from '../src/index.js';

describe('package entry points', () => {
  describe('when the main entry is imported', () => {
    it('should expose the agent, tools, client and error classes by name', () => {
      for (const name of [
        'Agent',
        'RunState',
        'defineTool',
        'hostedTools',
        'knowledgeBaseTools',
        'fileTools',
        'SvcClient',
        'ChatCompletionStream',
        'imagePart',
        'SvcError',
        'APIError',
        'RateLimitError',
        'RequestValidationError',
        'ToolDefinitionError',
        'MaxTurnsExceededError',
        'defineGuardrail',
        'GuardrailTripwireError',
        'handoff',
        'handoffFilters',
      ]) {
        expect(mainEntry, name).toHaveProperty(name);
      }
    });

    it('should not pull the emulator into the main entry', () => {
      expect(mainEntry).not.toHaveProperty('startEmulator');
    });

    it('should keep the tool executor internals out of the main entry', () => {
      for (const name of [
        'executeToolCall',
        'resolveNeedsApproval',
        'ToolCallLedger',
        'toolNameOf',
        'formatToolOutput',
        'DEFAULT_TOOL_TIMEOUT_MS',
      ]) {
        expect(mainEntry, name).not.toHaveProperty(name);
      }
    });

    it('should keep MCP (an optional peer dependency) out of the main entry', () => {
      expect(mainEntry).not.toHaveProperty('connectMcpServer');
    });
  });

  describe('when the emulator entry is imported', () => {
    it('should expose startEmulator', () => {
      expect(typeof emulatorEntry.startEmulator).toBe('function');
    });
  });

  describe('when the web and client entries are imported', () => {
    it('should expose the chat handler and the UI protocol bridge, and a client free of Node imports', async () => {
      const web = await import('../src/web/index.js');
      expect(typeof web.createChatHandler).toBe('function');
      expect(typeof web.toUIMessageStreamResponse).toBe('function');
      const client = await import('../src/browser-client/index.js');
      expect(Object.keys(client).sort()).toEqual(['ChatClientError', 'ChatRunLostError', 'createChatClient']);
      const { build } = await import('esbuild');
      const bundle = await build({
        entryPoints: ['src/browser-client/index.ts'],
        bundle: true,
        write: false,
        platform: 'browser',
        format: 'esm',
        metafile: true,
      });
      // Only the client's own files: no svc-agents runtime module and no node: built-in is pulled in.
      expect(Object.keys(bundle.metafile.inputs).sort()).toEqual([
        'src/browser-client/index.ts',
        'src/browser-client/parse-sse.ts',
      ]);
    });
  });

  describe('when every error class is checked', () => {
    it('should recognise subclasses through SvcError.isInstance', () => {
      const error = new mainEntry.ToolDefinitionError({ toolName: 'x', rule: 'bad' });
      expect(mainEntry.SvcError.isInstance(error)).toBe(true);
    });
  });
});
