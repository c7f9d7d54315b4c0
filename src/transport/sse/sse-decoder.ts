import { StringDecoder } from 'node:string_decoder';

const LF = 10;
const COLON = 58;
const SPACE = 32;
const BOM = 0xfeff;
const D = 100;
const A = 97;
const T = 116;

/** The `data` payload that ends a stream; it is not yielded. */
export const sseDoneMarker = '[DONE]';

/** Default cap on the size of one event (its unfinished line plus its `data` so far), in bytes. */
export const defaultMaxEventBytes = 32 * 1024 * 1024;

/** Options of {@link SseDecoder}. */
export interface SseDecoderOptions {
  /** Largest event accepted, in UTF-8 bytes (its unfinished line plus its `data` so far); a larger one throws. @default 32 MiB */
  maxEventBytes?: number | undefined;
  /** Builds the error thrown past `maxEventBytes`. @default a plain Error */
  onTooLarge?: ((limit: number) => Error) | undefined;
}

/**
 * Incremental server-sent-events decoder: feed it bytes as they arrive, in any split, and it returns the
 * `data` payload of each complete event. Follows the SSE rules that matter here: `\r\n`, `\n` or `\r` line
 * ends, `:` comment lines, several `data:` lines joined with `\n`, other fields ignored, and it stops at
 * `data: [DONE]`. It sits on the hot path of every streamed token, so it never loops per byte or uses a
 * regex: each read is decoded to text once and scanned with `indexOf`. The decoding is Node's
 * `StringDecoder` (keeps a character split across reads whole): on Node 20 it is far faster than a
 * streaming `TextDecoder` on ASCII and close to it on other text (bench/results/2026-11-24-sse-decode.md).
 */
export class SseDecoder {
  private readonly _decoder = new StringDecoder('utf8');
  /** The first text was seen (a byte-order mark at its start is dropped). */
  private _started = false;
  /** Total length of `_pending`, in UTF-16 code units. */
  private _pendingLength = 0;
  /** UTF-8 bytes of `_pending` and of `_data`; -1 until an event is large enough to count (`_checkSize`). */
  private _pendingBytes = -1;
  private _dataBytes = -1;
  private readonly _maxEventBytes: number;
  private readonly _onTooLarge: (limit: number) => Error;
  /** Text of an unfinished line, kept as pieces so a long event is not re-scanned on every read. */
  private _pending: string[] = [];
  /** The previous text ended with `\r`: a `\n` at the start of the next one belongs to it. */
  private _skipLF = false;
  private _data: string | undefined = undefined;
  private _done = false;

  constructor(options: SseDecoderOptions = {}) {
    this._maxEventBytes = options.maxEventBytes ?? defaultMaxEventBytes;
    this._onTooLarge =
      options.onTooLarge ?? ((limit) => new Error(`A stream event is larger than ${limit} bytes.`));
  }

  /**
   * Throws once the event being read (its unfinished line plus its `data` so far) exceeds the cap in
   * bytes. UTF-8 takes at most 3 bytes per UTF-16 code unit, so an event under a third of the cap in code
   * units is under it in bytes: only larger events are counted, each piece once as it arrives, so a huge
   * event stays linear.
   */
  private _checkSize(): void {
    const data = this._data;
    if ((this._pendingLength + (data?.length ?? 0)) * 3 <= this._maxEventBytes) return;
    if (this._pendingBytes < 0) {
      this._pendingBytes = 0;
      for (const piece of this._pending) this._pendingBytes += Buffer.byteLength(piece);
    }
    if (data !== undefined && this._dataBytes < 0) this._dataBytes = Buffer.byteLength(data);
    if (this._pendingBytes + (data === undefined ? 0 : this._dataBytes) > this._maxEventBytes) {
      this._refuse();
    }
  }

  private _refuse(): never {
    this._finish();
    throw this._onTooLarge(this._maxEventBytes);
  }

  /** Keeps `piece` as part of the unfinished line. */
  private _keep(piece: string): void {
    this._pending.push(piece);
    this._pendingLength += piece.length;
    if (this._pendingBytes >= 0) this._pendingBytes += Buffer.byteLength(piece);
  }

  private _clearPending(): void {
    this._pending = [];
    this._pendingLength = 0;
    this._pendingBytes = -1;
  }

  /** True once `data: [DONE]` was seen; later input is ignored. */
  get done(): boolean {
    return this._done;
  }

  /** Decodes the next bytes and returns the data payloads of the events they complete (often none or one). */
  decode(bytes: Uint8Array): string[] {
    if (this._done) return [];
    const text = this._decoder.write(bytes);
    if (this._started || text === '') return this.decodeText(text);
    this._started = true;
    return this.decodeText(text.charCodeAt(0) === BOM ? text.slice(1) : text);
  }

  /** Same as {@link decode} for already decoded text. */
  decodeText(text: string): string[] {
    const out: string[] = [];
    if (this._done || text === '') return out;
    let start = 0;
    if (this._skipLF) {
      this._skipLF = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    if (this._pending.length > 0) {
      // Most reads of a long event carry no line end: keep the piece and skip the join.
      if (text.indexOf('\n', start) === -1 && text.indexOf('\r', start) === -1) {
        this._keep(start === 0 ? text : text.slice(start));
        this._checkSize();
        return out;
      }
      this._pending.push(start === 0 ? text : text.slice(start));
      text = this._pending.join('');
      this._clearPending();
      start = 0;
    }
    const rest =
      text.indexOf('\r', start) === -1 ? this._scanLF(text, start, out) : this._scanAny(text, start, out);
    if (rest < text.length && !this._done) {
      this._keep(text.slice(rest));
      this._checkSize();
    } else if (this._data !== undefined && !this._done) this._checkSize();
    return out;
  }

  /** Ends the input: flushes a final line without line end and an event without its blank line. */
  end(): string[] {
    const out: string[] = [];
    if (this._done) return out;
    const tail = this._decoder.end();
    if (tail !== '') this._pending.push(tail);
    if (this._pending.length > 0) {
      const line = this._pending.join('');
      this._clearPending();
      this._line(line, 0, line.length, out);
    }
    if (!this._done) this._dispatch(out);
    return out;
  }

  /** Fast path: only `\n` line ends in this text. Returns where the unfinished line starts. */
  private _scanLF(text: string, start: number, out: string[]): number {
    let pos = start;
    let nl = text.indexOf('\n', pos);
    while (nl !== -1) {
      // The common shape `data: <json>\n\n` is handled inline: one slice, no joins, no extra calls.
      if (
        this._data === undefined &&
        text.charCodeAt(nl + 1) === LF &&
        text.charCodeAt(pos) === D &&
        text.charCodeAt(pos + 1) === A &&
        text.charCodeAt(pos + 2) === T &&
        text.charCodeAt(pos + 3) === A &&
        text.charCodeAt(pos + 4) === COLON
      ) {
        const value = text.slice(text.charCodeAt(pos + 5) === SPACE ? pos + 6 : pos + 5, nl);
        if (value === sseDoneMarker) {
          this._finish();
          return text.length;
        }
        // A whole event in one read is checked too; the byte count is needed only past a third of the cap.
        if (value.length * 3 > this._maxEventBytes && Buffer.byteLength(value) > this._maxEventBytes) {
          this._refuse();
        }
        out.push(value);
        pos = nl + 2;
      } else {
        this._line(text, pos, nl, out);
        if (this._done) return text.length;
        pos = nl + 1;
      }
      nl = text.indexOf('\n', pos);
    }
    return pos;
  }

  /** General path: `\r\n`, `\n` and lone `\r` line ends. */
  private _scanAny(text: string, start: number, out: string[]): number {
    let pos = start;
    let cr = text.indexOf('\r', pos);
    let lf = text.indexOf('\n', pos);
    while ((cr !== -1 || lf !== -1) && !this._done) {
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      this._line(text, pos, end, out);
      pos = end + 1;
      if (end === cr) {
        if (pos === text.length) {
          this._skipLF = true;
        } else if (text.charCodeAt(pos) === LF) {
          pos++;
        }
        cr = text.indexOf('\r', pos);
      }
      if (lf !== -1 && lf < pos) lf = text.indexOf('\n', pos);
    }
    return pos;
  }

  /** Handles the line `text[start, end)`. */
  private _line(text: string, start: number, end: number, out: string[]): void {
    if (start === end) {
      this._dispatch(out);
      return;
    }
    const first = text.charCodeAt(start);
    if (first === COLON) return;
    // `data:` is by far the most common field: test it by char codes, without slicing the name.
    if (
      first === D &&
      end - start >= 4 &&
      text.charCodeAt(start + 1) === A &&
      text.charCodeAt(start + 2) === T &&
      text.charCodeAt(start + 3) === A
    ) {
      let valueStart: number;
      if (end - start === 4) valueStart = end;
      else if (text.charCodeAt(start + 4) === COLON) {
        valueStart = start + 5;
        if (valueStart < end && text.charCodeAt(valueStart) === SPACE) valueStart++;
      } else return; // a field like `database:`, ignored
      const value = text.slice(valueStart, end);
      if (this._data === undefined) this._data = value;
      else {
        this._data = `${this._data}\n${value}`;
        if (this._dataBytes >= 0) this._dataBytes += 1 + Buffer.byteLength(value);
      }
      this._checkSize();
    }
    // Other fields (event, id, retry) carry nothing this API uses.
  }

  private _finish(): void {
    this._done = true;
    this._clearPending();
    this._data = undefined;
    this._dataBytes = -1;
  }

  private _dispatch(out: string[]): void {
    const data = this._data;
    if (data === undefined) return;
    this._data = undefined;
    this._dataBytes = -1;
    if (data === sseDoneMarker) {
      this._finish();
      return;
    }
    out.push(data);
  }
}
