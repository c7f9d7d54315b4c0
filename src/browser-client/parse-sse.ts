/** One event of an SSE stream as the client reads it. */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/** What the parser reports: a message, or a `retry:` advice. */
export type SseItem = { kind: 'message'; message: SseMessage } | { kind: 'retry'; ms: number };

/**
 * Parses the bytes of an SSE response (per the HTML spec: `id`, `event`, `data`, `retry`, comments),
 * yielding messages and retry advices as they complete.
 */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseItem> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.search(/\r\n|\r|\n/);
      // A CR at the end of a read may be the first half of a CRLF: wait for the next read to know.
      while (newline >= 0 && !(newline === buffer.length - 1 && buffer.endsWith('\r'))) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length > 0)
            yield { kind: 'message', message: { id, event: event || 'message', data: data.join('\n') } };
          data = [];
          event = '';
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          let value = colon < 0 ? '' : line.slice(colon + 1);
          if (value.startsWith(' ')) value = value.slice(1);
          if (field === 'data') data.push(value);
          else if (field === 'id' && !value.includes('\0')) id = value;
          else if (field === 'event') event = value;
          else if (field === 'retry' && /^\d+$/.test(value)) yield { kind: 'retry', ms: Number(value) };
        }
        newline = buffer.search(/\r\n|\r|\n/);
      }
    }
  } finally {
    // Stopping early (a `break` in the consumer) must close the connection, so the server sees it go.
    reader.cancel().catch(() => {});
  }
}
