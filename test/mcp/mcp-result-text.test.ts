import { describe, expect, it } from 'vitest';
import { mcpResultText } from '../../src/mcp/mcp-result-text.js';

describe('mcpResultText', () => {
  describe('when the result mixes content blocks', () => {
    it('should keep text, and name audio, links and binary resources by type and size', () => {
      const text = mcpResultText({
        content: [
          { type: 'text', text: 'Report:' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///r.pdf', name: 'r.pdf' },
          {
            type: 'resource',
            resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'inline text' },
          },
          {
            type: 'resource',
            resource: { uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: 'AAAAAA==' },
          },
        ],
      });
      expect(text.split('\n')).toEqual([
        'Report:',
        '[audio audio/wav, 3 bytes]',
        '[resource r.pdf file:///r.pdf]',
        'inline text',
        '[resource file:///b.bin application/octet-stream, 4 bytes]',
      ]);
    });
  });

  describe('when the result has structured content', () => {
    it('should send it as JSON unless a text block already says it', () => {
      expect(mcpResultText({ content: [], structuredContent: { a: 1 } })).toBe('{"a":1}');
      expect(
        mcpResultText({ content: [{ type: 'text', text: 'a is 1' }], structuredContent: { a: 1 } }),
      ).toBe('a is 1');
      expect(mcpResultText({})).toBe('');
    });
  });
});
