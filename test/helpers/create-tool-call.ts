import type { ToolCall } from '../../src/api/types/chat.js';

let counter = 0;

/** A model tool call; `args` objects are JSON-encoded, strings are sent as is. */
export function createToolCall(name: string, args: unknown = {}, id = `call_${++counter}`): ToolCall {
  return {
    id,
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  };
}
