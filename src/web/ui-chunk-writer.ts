import { UserError } from '../core/errors.js';
import type { UIMessageChunk } from './ui-message-chunk.js';

/** The chunks a backend may write into a run with `ChatAgentContext.ui` (the rest are the agent's own). */
export type UIWritableChunk = Extract<
  UIMessageChunk,
  { type: `data-${string}` | 'file' | 'source-url' | 'source-document' | 'message-metadata' }
>;

/** Writes UI message stream chunks into a chat run, in order with its events (`ChatAgentContext.ui`). */
export interface UIChunkWriter {
  /**
   * Adds a chunk to the run: a `data-<name>` part (`{ type: 'data-weather', id?, data, transient? }`;
   * transient data reaches `onData` only, never the message), a `file`, a `source-url`, a
   * `source-document` or `message-metadata`. A chunk of another type is a `UserError`; a write after the
   * run ended is ignored (the page has been told the run is over).
   * @example ctx.ui.write({ type: 'data-progress', data: { percent: 40 }, transient: true })
   */
  write(chunk: UIWritableChunk): void;
}

const WRITABLE = new Set(['file', 'source-url', 'source-document', 'message-metadata']);

/** A writer that hands each chunk, as a `ui-chunk` log event, to `push`, until `close()`. */
export function uiChunkWriter(push: (data: string) => void): UIChunkWriter & { close(): void } {
  let closed = false;
  return {
    write(chunk) {
      const type = (chunk as { type?: unknown } | null)?.type;
      if (typeof type !== 'string' || !(WRITABLE.has(type) || /^data-[\w-]+$/.test(type)))
        throw new UserError(
          `chunk.type: must be 'data-<name>', 'file', 'source-url', 'source-document' or 'message-metadata' (got ${JSON.stringify(type)})`,
        );
      if (closed) return;
      push(JSON.stringify({ type: 'ui-chunk', chunk }));
    },
    close() {
      closed = true;
    },
  };
}
