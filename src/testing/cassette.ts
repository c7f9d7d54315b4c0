import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CanonicalRequest } from './canonical-request.js';

/** What a recording keeps of an answer: status, the headers a client reads, and the body. */
export interface RecordedResponse {
  status: number;
  /** `content-type`, `retry-after`, `retry-after-ms`, `x-trace-id` when the service sent them. */
  headers: Record<string, string>;
  /** A JSON answer, parsed; or the text of any other answer. */
  body?: unknown;
  /** A streamed answer: its server-sent events, one `data: ...` line each, in the order they came. */
  events?: string[];
}

/** One request and its answer. */
export interface Interaction {
  request: CanonicalRequest;
  response: RecordedResponse;
}

/** A cassette file: readable JSON, one interaction per request, in the order they were made. */
export interface CassetteFile {
  /** Format version of the file. */
  version: 1;
  interactions: Interaction[];
}

/** Headers a recording keeps: the rest (dates, connection details) would only make diffs noisy. */
export const KEPT_HEADERS = ['content-type', 'retry-after', 'retry-after-ms', 'x-trace-id'];

/** The interactions of a cassette, or undefined when the file does not exist. */
export async function readCassette(path: string): Promise<Interaction[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const file = JSON.parse(text) as CassetteFile;
  return file.interactions;
}

/** Writes a cassette whole (a temporary file renamed over the old one), pretty-printed for review. */
export async function writeCassette(path: string, interactions: Interaction[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const file: CassetteFile = { version: 1, interactions };
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`);
  await rename(temporary, path);
}

/** Splits a stream's text into its `data:` events (blank-line separated), keeping each as written. */
export function sseEvents(text: string): string[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((event) => event.trim())
    .filter(Boolean);
}
