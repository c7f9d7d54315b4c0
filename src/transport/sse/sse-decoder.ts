const LF = 10;
const COLON = 58;
const SPACE = 32;

/** The `data` payload that ends a stream; it is not yielded. */
export const sseDoneMarker = '[DONE]';

/**
 * Incremental server-sent-events decoder: feed it bytes as they arrive, in any split, and it returns the
 * `data` payload of each complete event. Follows the SSE rules that matter here: `\r\n`, `\n` or `\r` line
 * ends, `:` comment lines, several `data:` lines joined with `\n`, other fields ignored, and it stops at
 * `data: [DONE]`. Works on decoded strings with `indexOf` (no per-byte loop, no regex) because it sits on
 * the hot path of every streamed token.
 */
export class SseDecoder {
  #decoder = new TextDecoder('utf-8');
  /** Text of an unfinished line, kept as pieces so a long event is not re-scanned on every read. */
  #pending: string[] = [];
  /** The previous text ended with `\r`: a `\n` at the start of the next one belongs to it. */
  #skipLF = false;
  #data: string | undefined = undefined;
  #done = false;

  /** True once `data: [DONE]` was seen; later input is ignored. */
  get done(): boolean {
    return this.#done;
  }

  /** Decodes the next bytes and returns the data payloads of the events they complete (often none or one). */
  decode(bytes: Uint8Array): string[] {
    if (this.#done) return [];
    return this.decodeText(this.#decoder.decode(bytes, { stream: true }));
  }

  /** Same as {@link decode} for already decoded text. */
  decodeText(text: string): string[] {
    const out: string[] = [];
    if (this.#done || text === '') return out;
    let start = 0;
    if (this.#skipLF) {
      this.#skipLF = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    if (this.#pending.length > 0) {
      // Most reads of a long event carry no line end: keep the piece and skip the join.
      if (text.indexOf('\n', start) === -1 && text.indexOf('\r', start) === -1) {
        this.#pending.push(start === 0 ? text : text.slice(start));
        return out;
      }
      this.#pending.push(start === 0 ? text : text.slice(start));
      text = this.#pending.join('');
      this.#pending = [];
      start = 0;
    }
    const rest =
      text.indexOf('\r', start) === -1 ? this.#scanLF(text, start, out) : this.#scanAny(text, start, out);
    if (rest < text.length && !this.#done) this.#pending.push(text.slice(rest));
    return out;
  }

  /** Ends the input: flushes a final line without line end and an event without its blank line. */
  end(): string[] {
    const out: string[] = [];
    if (this.#done) return out;
    const tail = this.#decoder.decode();
    if (tail !== '') this.#pending.push(tail);
    if (this.#pending.length > 0) {
      const line = this.#pending.join('');
      this.#pending = [];
      this.#line(line, 0, line.length, out);
    }
    if (!this.#done) this.#dispatch(out);
    return out;
  }

  /** Fast path: only `\n` line ends in this text. Returns where the unfinished line starts. */
  #scanLF(text: string, start: number, out: string[]): number {
    let pos = start;
    for (let nl = text.indexOf('\n', pos); nl !== -1 && !this.#done; nl = text.indexOf('\n', pos)) {
      this.#line(text, pos, nl, out);
      pos = nl + 1;
    }
    return pos;
  }

  /** General path: `\r\n`, `\n` and lone `\r` line ends. */
  #scanAny(text: string, start: number, out: string[]): number {
    let pos = start;
    let cr = text.indexOf('\r', pos);
    let lf = text.indexOf('\n', pos);
    while ((cr !== -1 || lf !== -1) && !this.#done) {
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      this.#line(text, pos, end, out);
      pos = end + 1;
      if (end === cr) {
        if (pos === text.length) {
          this.#skipLF = true;
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
  #line(text: string, start: number, end: number, out: string[]): void {
    if (start === end) {
      this.#dispatch(out);
      return;
    }
    const first = text.charCodeAt(start);
    if (first === COLON) return;
    // `data:` is by far the most common field: test it by char codes, without slicing the name.
    if (
      first === 100 &&
      end - start >= 4 &&
      text.charCodeAt(start + 1) === 97 &&
      text.charCodeAt(start + 2) === 116 &&
      text.charCodeAt(start + 3) === 97
    ) {
      let valueStart: number;
      if (end - start === 4) valueStart = end;
      else if (text.charCodeAt(start + 4) === COLON) {
        valueStart = start + 5;
        if (valueStart < end && text.charCodeAt(valueStart) === SPACE) valueStart++;
      } else return; // a field like `database:`, ignored
      const value = text.slice(valueStart, end);
      this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
    }
    // Other fields (event, id, retry) carry nothing this API uses.
  }

  #dispatch(out: string[]): void {
    const data = this.#data;
    if (data === undefined) return;
    this.#data = undefined;
    if (data === sseDoneMarker) {
      this.#done = true;
      this.#pending = [];
      return;
    }
    out.push(data);
  }
}
