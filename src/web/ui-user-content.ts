import { imagePart } from '../api/parts/image-part.js';
import { isHttpUrl } from '../api/parts/read-part-bytes.js';
import type { ContentPart } from '../api/types/chat.js';
import { ChatRequestError } from './web-error.js';

/** A part of a `useChat` user message, as posted. */
interface UIUserPart {
  type?: unknown;
  text?: unknown;
  mediaType?: unknown;
  url?: unknown;
  filename?: unknown;
}

/** At most this many files per message, as `POST /chat` takes at most 4 images. */
const MAX_FILES = 4;

/** Text-like media types whose content is inlined as text, as the AI SDK does for the models it knows. */
const TEXT_TYPES = /^(text\/[\w.+-]+|application\/(json|xml|x-yaml|yaml|csv|[\w.+-]+\+(json|xml)))$/i;

/**
 * The content the model gets for a `useChat` user message (`sendMessage({ text, files })`): its text
 * parts, each image file (`data:image/...` or an http(s) address, checked as `imagePart` checks it) as an
 * image part, each text file (a `data:` URL of `text/*`, JSON, XML, YAML, CSV) inlined as a text part
 * naming the file. A message may be images only. Answers a plain string when it is text only.
 */
export function uiUserContent(parts: readonly UIUserPart[], at: number): string | ContentPart[] {
  const content: ContentPart[] = [];
  let files = 0;
  parts.forEach((part, index) => {
    const field = `messages[${at}].parts[${index}]`;
    if (part.type === 'text' && typeof part.text === 'string') {
      if (part.text !== '') content.push({ type: 'text', text: part.text });
      return;
    }
    if (part.type !== 'file') return;
    if (++files > MAX_FILES)
      throw new ChatRequestError({
        status: 400,
        message: `${field}: at most ${MAX_FILES} files per message`,
      });
    const { mediaType, url } = part;
    if (typeof mediaType !== 'string' || typeof url !== 'string')
      throw new ChatRequestError({ status: 400, message: `${field}: a file needs a mediaType and a url` });
    const name = typeof part.filename === 'string' ? part.filename : undefined;
    if (mediaType.toLowerCase().startsWith('image/')) {
      // Never a path: imagePart reads a file path from disk.
      if (!(isHttpUrl(url) || url.startsWith('data:')))
        throw new ChatRequestError({
          status: 400,
          message: `${field}: an image must be a data: URL or http(s)`,
        });
      try {
        content.push(imagePart(url));
      } catch (error) {
        throw new ChatRequestError({ status: 400, message: `${field}: ${(error as Error).message}` });
      }
      return;
    }
    if (TEXT_TYPES.test(mediaType) && url.startsWith('data:')) {
      content.push({ type: 'text', text: `${name ?? 'file'} (${mediaType}):\n${decodeDataUrl(url, field)}` });
      return;
    }
    throw new ChatRequestError({
      status: 400,
      message: `${field}: ${mediaType} files are not taken here; send images, or text files as data: URLs`,
    });
  });
  if (files > 0) return content;
  const text = content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  if (!text.trim())
    throw new ChatRequestError({
      status: 400,
      message: `messages[${at}]: a user message needs text or a file`,
    });
  return text;
}

/** The text of a `data:` URL (base64 or percent-encoded), as UTF-8. */
function decodeDataUrl(url: string, field: string): string {
  const comma = url.indexOf(',');
  if (comma === -1)
    throw new ChatRequestError({ status: 400, message: `${field}: a data: URL needs a comma` });
  const header = url.slice(5, comma);
  const body = url.slice(comma + 1);
  try {
    return header.endsWith(';base64')
      ? Buffer.from(body, 'base64').toString('utf8')
      : decodeURIComponent(body);
  } catch {
    throw new ChatRequestError({ status: 400, message: `${field}: the data: URL does not decode` });
  }
}
