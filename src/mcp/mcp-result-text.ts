/** One block of an MCP `tools/call` result's `content`, as far as the text conversion reads it. */
interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** The fields of an MCP `CallToolResult` the conversion reads. */
export interface McpCallResult {
  /** Text, image, audio and resource blocks. */
  content?: ContentBlock[];
  /** The tool's JSON result, when it declares an output schema (or sends one anyway). */
  structuredContent?: Record<string, unknown>;
  /** True when the tool failed; the content then says why. */
  isError?: boolean;
}

/**
 * The `tool` message text of an MCP result. The service's `tool` message carries a string only, so text
 * blocks are passed as they are, `structuredContent` as JSON when no text block says it already, and
 * images, audio and binary resources as a short note naming their type and size.
 */
export function mcpResultText(result: McpCallResult): string {
  const parts: string[] = [];
  let hasText = false;
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        hasText = true;
        parts.push(block.text ?? '');
        break;
      case 'image':
      case 'audio':
        parts.push(`[${block.type} ${block.mimeType ?? 'unknown type'}, ${base64Bytes(block.data)} bytes]`);
        break;
      case 'resource_link':
        parts.push(`[resource ${block.name ?? ''} ${block.uri ?? ''}]`.replace(/\s+]/, ']'));
        break;
      case 'resource': {
        const resource = block.resource ?? {};
        if (typeof resource.text === 'string') {
          hasText = true;
          parts.push(resource.text);
        } else {
          parts.push(
            `[resource ${resource.uri ?? ''} ${resource.mimeType ?? ''}, ${base64Bytes(resource.blob)} bytes]`,
          );
        }
        break;
      }
      default:
        parts.push(`[${block.type} content]`);
    }
  }
  if (!hasText && result.structuredContent !== undefined) {
    parts.unshift(JSON.stringify(result.structuredContent));
  }
  return parts.join('\n');
}

function base64Bytes(data: string | undefined): number {
  if (!data) return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
