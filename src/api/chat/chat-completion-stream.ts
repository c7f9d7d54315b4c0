import {
  APIConnectionError,
  APIUserAbortError,
  createAPIError,
  InvalidResponseError,
  UserError,
} from '../../core/errors.js';
import type { SseResponse } from '../../transport/http-request.js';
import type { ChatCompletion, ChatCompletionChunk } from '../types/chat.js';
import { ChatCompletionAccumulator } from './chat-completion-accumulator.js';
import type { ChunkUpdate } from './chunk-update.js';
import { statusOfStreamError } from './status-of-stream-error.js';

/** A chunk and what it changed in the accumulated completion (see `ChatCompletionAccumulator.addWithUpdates`). */
export interface ChunkWithUpdates {
  chunk: ChatCompletionChunk;
  updates: ChunkUpdate[];
}

let readUpdatesPerRead: (stream: ChatCompletionStream) => AsyncIterable<ChunkUpdate[]>;

/**
 * The updates of `stream.withUpdates()` without the chunks, gathered per network read (the agent's fast
 * path in `call-model`). Internal: not on the package's entries, so it is no public method either.
 */
export function updatesPerRead(stream: ChatCompletionStream): AsyncIterable<ChunkUpdate[]> {
  return readUpdatesPerRead(stream);
}

/**
 * A streamed chat completion: iterate it once for the chunks, and/or await `finalCompletion()` for the
 * accumulated `ChatCompletion` (it drains the stream itself when nobody iterates).
 *
 * @example
 * const stream = await client.chat.completions.create({ model, messages, stream: true });
 * for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? '');
 * const completion = await stream.finalCompletion();
 */
export class ChatCompletionStream implements AsyncIterable<ChatCompletionChunk> {
  /** The `X-Trace-Id` of the response, for support requests. */
  readonly requestId: string | undefined;
  /** Folds every chunk seen so far; `accumulator.snapshot()` gives the completion up to now. */
  readonly accumulator = new ChatCompletionAccumulator();
  readonly #sse: SseResponse;
  #started = false;
  readonly #done: Promise<ChatCompletion>;
  #resolve!: (completion: ChatCompletion) => void;
  #reject!: (error: unknown) => void;

  constructor(sse: SseResponse) {
    this.#sse = sse;
    this.requestId = sse.requestId;
    this.#done = new Promise<ChatCompletion>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // A failure nobody asked for must not become an unhandled rejection; finalCompletion() still sees it.
    this.#done.catch(() => {});
  }

  /** Iterates the chunks as they arrive; a stream can be iterated only once. */
  [Symbol.asyncIterator](): AsyncIterator<ChatCompletionChunk> {
    return this.#iterate((chunk) => {
      this.accumulator.add(chunk);
      return chunk;
    });
  }

  /**
   * Iterates the chunks with what each changed (text, reasoning, audio, and for tool-call deltas the position
   * of the accumulated call). Counts as the one iteration of this stream.
   */
  withUpdates(): AsyncIterable<ChunkWithUpdates> {
    const iterator = this.#iterate((chunk) => ({ chunk, updates: this.accumulator.addWithUpdates(chunk) }));
    return { [Symbol.asyncIterator]: () => iterator };
  }

  static {
    readUpdatesPerRead = (stream) => stream.#updatesPerRead();
  }

  /**
   * The updates of `withUpdates()` without the chunks, gathered per network read: each value holds the
   * updates of every chunk that arrived in one read, in order (one await per read, not per chunk). Counts
   * as the one iteration of this stream. A chunk that fails to parse ends the iteration after the updates
   * of the chunks before it.
   */
  #updatesPerRead(): AsyncIterable<ChunkUpdate[]> {
    const accumulator = this.accumulator;
    const iterator = this.#iterate<ChunkUpdate[]>(
      (chunk) => accumulator.addWithUpdates(chunk),
      (chunk, into) => accumulator.addWithUpdates(chunk, into),
    );
    return { [Symbol.asyncIterator]: () => iterator };
  }

  /**
   * Iterates the stream, one value per chunk from `fold`; with `foldMore`, the later chunks of the same
   * read are folded into the same value instead (per-read values). The events are read from the
   * transport's queue (`events`, per event or per read with `readBatch`); this only folds them and settles `#done`.
   */
  #iterate<T>(
    fold: (chunk: ChatCompletionChunk) => T,
    foldMore?: (chunk: ChatCompletionChunk, into: T) => void,
  ): AsyncIterator<T> {
    if (this.#started) {
      throw new UserError(
        'ChatCompletionStream can be iterated only once; use finalCompletion() or accumulator.snapshot() for the result.',
      );
    }
    this.#started = true;
    const sse = this.#sse;
    let finished = false;
    // A chunk of this read that failed after others were folded: thrown by the next call.
    let failure: { error: unknown } | undefined;
    const done: IteratorResult<T> = { done: true, value: undefined };
    /** Ends the iteration with `error`: the connection is dropped and `finalCompletion()` rejects too. */
    const fail = (error: unknown): void => {
      finished = true;
      sse.abort(error);
      this.#reject(error);
    };
    const stop = (error: unknown): never => {
      fail(error);
      throw error;
    };
    const end = (): IteratorResult<T> => {
      finished = true;
      const truncated = this.#truncation();
      if (truncated !== undefined) {
        this.#reject(truncated);
        throw truncated;
      }
      this.#resolve(this.accumulator.snapshot());
      return done;
    };
    const onData = (data: string): IteratorResult<T> => {
      try {
        return { done: false, value: fold(this.#parse(data)) };
      } catch (error) {
        return stop(error);
      }
    };
    const onEvent = (step: IteratorResult<string, undefined>): IteratorResult<T> => {
      // abort() or return() while this read was pending.
      if (finished) return done;
      if (step.done) return end();
      return onData(step.value);
    };
    const onBatch = (batch: string[] | undefined): IteratorResult<T> => {
      if (finished) return done;
      if (batch === undefined) return end();
      let value: T;
      try {
        value = fold(this.#parse(batch[0] as string));
      } catch (error) {
        return stop(error);
      }
      try {
        for (let i = 1; i < batch.length; i++) foldMore?.(this.#parse(batch[i] as string), value);
      } catch (error) {
        failure = { error };
      }
      return { done: false, value };
    };
    const events = sse.events;
    const read =
      foldMore === undefined
        ? (): Promise<IteratorResult<T>> => {
            // A buffered event is folded now: one promise per chunk, not a second one from then().
            const data = events.poll();
            if (data === undefined) return events.next().then(onEvent, stop);
            try {
              return Promise.resolve(onData(data));
            } catch (error) {
              return Promise.reject(error);
            }
          }
        : () => events.readBatch().then(onBatch, stop);
    return {
      next: (): Promise<IteratorResult<T>> => {
        if (finished) return Promise.resolve(done);
        if (failure !== undefined) {
          fail(failure.error);
          return Promise.reject(failure.error);
        }
        return read();
      },
      return: async (): Promise<IteratorResult<T>> => {
        if (!finished) {
          finished = true;
          // The caller stopped early (break): close the connection, the completion will never be whole.
          sse.abort();
          this.#reject(new APIUserAbortError('The stream was closed before it ended.'));
          sse.close();
        }
        return done;
      },
    };
  }

  /** The accumulated completion once the stream ends; drains the stream when it is not being iterated. */
  finalCompletion(): Promise<ChatCompletion> {
    if (!this.#started) void this.#drain();
    return this.#done;
  }

  /**
   * Settles like `finalCompletion()` but never reads the stream itself: for an observer (a trace) while
   * someone else iterates. Without a reader it stays pending.
   */
  whenDone(): Promise<ChatCompletion> {
    return this.#done;
  }

  /** The same as {@link finalCompletion}, under the name openai-node's stream helper uses. */
  finalChatCompletion(): Promise<ChatCompletion> {
    return this.finalCompletion();
  }

  /** Closes the stream now; a pending iteration or `finalCompletion()` rejects with `APIUserAbortError`. */
  abort(reason?: unknown): void {
    this.#sse.abort(reason);
  }

  async #drain(): Promise<void> {
    // Nobody sees the values: fold every chunk of a read into the accumulator, one await per read.
    const accumulator = this.accumulator;
    const add = (chunk: ChatCompletionChunk): undefined => {
      accumulator.add(chunk);
    };
    const iterator = this.#iterate(add, add);
    try {
      while (!(await iterator.next()).done) {
        // Each read's chunks are folded into the accumulator by next().
      }
    } catch {
      // Already delivered to finalCompletion() by next().
    }
  }

  /**
   * A stream whose body ended without `data: [DONE]` and without any `finish_reason` was cut: the turn is
   * incomplete (text or tool arguments may stop mid-way), so it is a retryable connection error.
   */
  #truncation(): APIConnectionError | undefined {
    if (this.#sse.ended?.() !== 'eof') return undefined;
    const completion = this.accumulator.snapshot();
    if (completion.choices.some((choice) => choice.finish_reason)) return undefined;
    return new APIConnectionError(
      'Stream interrupted: the body ended before `data: [DONE]` and before any finish_reason; the answer is incomplete.',
    );
  }

  #redact(text: string): string {
    return this.#sse.redact(text);
  }

  #parse(data: string): ChatCompletionChunk {
    let chunk: unknown;
    try {
      // Masked in the raw event: an answer that echoes a secret whole never reaches a delta.
      chunk = JSON.parse(this.#redact(data));
    } catch {
      // Not kept as `cause`: the parser's message quotes the text, which may echo the key.
      throw new InvalidResponseError(
        `The stream sent an event that is not JSON: ${this.#redact(data).slice(0, 200)}`,
        { requestId: this.requestId },
      );
    }
    // The service may report a failure inside the stream instead of with a status code.
    const error = (chunk as { error?: unknown } | null)?.error;
    if (error && !(chunk as { choices?: unknown }).choices) {
      const headers: Record<string, string> = this.requestId ? { 'x-trace-id': this.requestId } : {};
      // Typed by what it says (`invalid_api_key` is an AuthenticationError), a server error otherwise.
      throw createAPIError(statusOfStreamError(error), data, headers, (text) => this.#redact(text));
    }
    if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) {
      throw new InvalidResponseError(
        `The stream sent an event that is not a chunk object: ${this.#redact(data).slice(0, 200)}`,
        { requestId: this.requestId },
      );
    }
    return chunk as ChatCompletionChunk;
  }
}
