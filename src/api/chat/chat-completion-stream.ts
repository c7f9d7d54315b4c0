import { APIUserAbortError } from '../../transport/errors/api-user-abort-error.js';
import { createAPIError } from '../../transport/errors/create-api-error.js';
import { SvcError } from '../../transport/errors/svc-error.js';
import type { SseResponse } from '../../transport/http-request.js';
import type { ChatCompletion, ChatCompletionChunk } from '../types/chat.js';
import { ChatCompletionAccumulator } from './chat-completion-accumulator.js';
import type { ChunkUpdate } from './chunk-update.js';

/** A chunk and what it changed in the accumulated completion (see `ChatCompletionAccumulator.addWithUpdates`). */
export interface ChunkWithUpdates {
  chunk: ChatCompletionChunk;
  updates: ChunkUpdate[];
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

  /**
   * The updates of `withUpdates()` without the chunks, gathered per network read: each value holds the
   * updates of every chunk that arrived in one read, in order (one await per read, not per chunk). Counts
   * as the one iteration of this stream. A chunk that fails to parse ends the iteration after the updates
   * of the chunks before it.
   */
  updatesPerRead(): AsyncIterable<ChunkUpdate[]> {
    const accumulator = this.accumulator;
    const iterator = this.#iterate<ChunkUpdate[]>(
      (chunk) => accumulator.addWithUpdates(chunk),
      (chunk, into) => accumulator.addWithUpdates(chunk, into),
    );
    return { [Symbol.asyncIterator]: () => iterator };
  }

  /**
   * Iterates the stream, one value per chunk from `fold`; with `foldMore`, the later chunks of the same
   * read are folded into the same value instead (per-read values).
   */
  #iterate<T>(
    fold: (chunk: ChatCompletionChunk) => T,
    foldMore?: (chunk: ChatCompletionChunk, into: T) => void,
  ): AsyncIterator<T> {
    if (this.#started) {
      throw new SvcError(
        'ChatCompletionStream can be iterated only once; use finalCompletion() or accumulator.snapshot() for the result.',
      );
    }
    this.#started = true;
    const sse = this.#sse;
    if (sse.readBatch === undefined) return this.#iterateEvents(fold);
    const readBatch = sse.readBatch.bind(sse);
    const accumulator = this.accumulator;
    let finished = false;
    let batch: string[] = [];
    let index = 0;
    /** Ends the iteration with `error`: the connection is dropped and `finalCompletion()` rejects too. */
    const stop = (error: unknown): Promise<never> => {
      finished = true;
      sse.abort(error);
      this.#reject(error);
      return Promise.reject(error);
    };
    const done: IteratorResult<T> = { done: true, value: undefined };
    // A chunk of this read that failed after others were folded: thrown by the next call.
    let failure: { error: unknown } | undefined;
    const take = (): IteratorResult<T> => {
      const value = fold(this.#parse(batch[index++] as string));
      if (foldMore !== undefined) {
        try {
          while (index < batch.length) foldMore(this.#parse(batch[index++] as string), value);
        } catch (error) {
          failure = { error };
        }
      }
      return { done: false, value };
    };
    const onBatch = (next: string[] | undefined): IteratorResult<T> | Promise<IteratorResult<T>> => {
      if (next === undefined) {
        finished = true;
        this.#resolve(accumulator.snapshot());
        return done;
      }
      // abort() or return() while this read was pending.
      if (finished) return done;
      if (next.length === 0) return readBatch().then(onBatch, stop);
      batch = next;
      index = 0;
      try {
        return take();
      } catch (error) {
        return stop(error);
      }
    };
    // One promise per chunk and one wait per network read: the payloads of a read are served from `batch`.
    return {
      next: (): Promise<IteratorResult<T>> => {
        if (finished) return Promise.resolve(done);
        if (failure !== undefined) return stop(failure.error);
        if (index >= batch.length) return readBatch().then(onBatch, stop);
        try {
          return Promise.resolve(take());
        } catch (error) {
          return stop(error);
        }
      },
      return: async (): Promise<IteratorResult<T>> => {
        if (!finished) {
          finished = true;
          batch = [];
          // The caller stopped early (break): close the connection, the completion will never be whole.
          sse.abort();
          this.#reject(new APIUserAbortError('The stream was closed before it ended.'));
          sse.close?.();
        }
        return done;
      },
    };
  }

  /** The one-await-per-event path, for an {@link SseResponse} that only offers `events`. */
  #iterateEvents<T>(fold: (chunk: ChatCompletionChunk) => T): AsyncIterator<T> {
    const events = this.#sse.events[Symbol.asyncIterator]();
    const accumulator = this.accumulator;
    let finished = false;
    return {
      next: async (): Promise<IteratorResult<T>> => {
        if (finished) return { done: true, value: undefined };
        let value: T;
        try {
          const result = await events.next();
          if (result.done) {
            finished = true;
            this.#resolve(accumulator.snapshot());
            return { done: true, value: undefined };
          }
          value = fold(this.#parse(result.value));
        } catch (error) {
          finished = true;
          this.#sse.abort(error);
          this.#reject(error);
          throw error;
        }
        return { done: false, value };
      },
      return: async (): Promise<IteratorResult<T>> => {
        if (!finished) {
          finished = true;
          // The caller stopped early (break): close the connection, the completion will never be whole.
          this.#sse.abort();
          this.#reject(new APIUserAbortError('The stream was closed before it ended.'));
          await events.return?.().catch(() => undefined);
        }
        return { done: true, value: undefined };
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
    const iterator = this[Symbol.asyncIterator]();
    try {
      while (!(await iterator.next()).done) {
        // Each chunk is folded into the accumulator by next().
      }
    } catch {
      // Already delivered to finalCompletion() by next().
    }
  }

  #parse(data: string): ChatCompletionChunk {
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch (cause) {
      throw new SvcError(`The stream sent an event that is not JSON: ${data.slice(0, 200)}`, { cause });
    }
    // The service may report a failure inside the stream instead of with a status code.
    if ((chunk as { error?: unknown }).error && !(chunk as { choices?: unknown }).choices) {
      const headers: Record<string, string> = this.requestId ? { 'x-trace-id': this.requestId } : {};
      throw createAPIError(500, data, headers);
    }
    return chunk as ChatCompletionChunk;
  }
}
