/** One server-sent event as written on the wire. */
export interface SseFrame {
  /** The event id a reconnecting client sends back as `Last-Event-ID`. */
  id?: string;
  /** The event name (`event:`); omitted means `message`. */
  event?: string;
  /** The payload; a multi-line text becomes several `data:` lines. */
  data: string;
}

/** Encodes one frame: `id:`, `event:`, one `data:` line per line of `data`, then a blank line. */
export function encodeSseFrame(frame: SseFrame): string {
  let text = '';
  // An id or event name with a line break would split the frame: the spec forbids it, so drop the break.
  if (frame.id !== undefined) text += `id: ${frame.id.replace(/[\r\n]/g, '')}\n`;
  if (frame.event !== undefined) text += `event: ${frame.event.replace(/[\r\n]/g, '')}\n`;
  const data = frame.data;
  text +=
    data.includes('\n') || data.includes('\r')
      ? `data: ${data.split(/\r\n|\r|\n/).join('\ndata: ')}\n\n`
      : `data: ${data}\n\n`;
  return text;
}
