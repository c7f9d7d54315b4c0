/** Cuts a text to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}\u2026` : text;
}

/** Text of an uploaded document: UTF-8, with control and binary bytes dropped (a pdf gives its readable runs). */
export function fileText(content: Buffer): string {
  return content
    .toString('utf8')
    .replace(/\r\n/g, '\n')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffd]+/g, ' ');
}
