import { describe, expect, it } from 'vitest';
import { AsyncQueue } from '../../src/transport/async-queue.js';

describe('AsyncQueue', () => {
  describe('when values are pushed before and while the consumer waits', () => {
    it('should yield them in order, then end', async () => {
      const queue = new AsyncQueue<number>();
      queue.push(1);
      queue.pushAll([2, 3]);
      const seen: number[] = [];
      const reading = (async () => {
        for await (const value of queue) seen.push(value);
      })();
      await Promise.resolve();
      queue.push(4);
      queue.end();
      await reading;
      expect(seen).toEqual([1, 2, 3, 4]);
    });
  });

  describe('when read per batch', () => {
    it('should hand over everything buffered per await, never an empty array, then undefined', async () => {
      const queue = new AsyncQueue<string>();
      queue.pushAll(['a', 'b']);
      queue.push('c');
      expect(await queue.readBatch()).toEqual(['a', 'b', 'c']);
      const pending = queue.readBatch();
      queue.pushAll(['d', 'e']);
      expect(await pending).toEqual(['d', 'e']);
      queue.end();
      expect(await queue.readBatch()).toBeUndefined();
    });
  });

  describe('when the producer fails', () => {
    it('should yield the buffered values, throw the mapped error once, then be done', async () => {
      const queue = new AsyncQueue<number>({ mapError: (error) => new Error(`mapped: ${String(error)}`) });
      queue.push(1);
      queue.fail('cut');
      expect(await queue.next()).toEqual({ done: false, value: 1 });
      await expect(queue.next()).rejects.toThrow('mapped: cut');
      expect(await queue.next()).toEqual({ done: true, value: undefined });
    });

    it('should reject a pending read', async () => {
      const queue = new AsyncQueue<number>();
      const pending = queue.next();
      queue.fail(new Error('boom'));
      await expect(pending).rejects.toThrow('boom');
    });
  });

  describe('when the consumer stops early', () => {
    it('should call onReturn once, drop the buffer and ignore later pushes', async () => {
      let returns = 0;
      const queue = new AsyncQueue<number>({ onReturn: () => void returns++ });
      queue.pushAll([1, 2, 3]);
      for await (const value of queue) {
        expect(value).toBe(1);
        break;
      }
      queue.push(4);
      expect(returns).toBe(1);
      expect(queue.size).toBe(0);
      expect(await queue.next()).toEqual({ done: true, value: undefined });
    });

    it('should not call onReturn after the producer ended', async () => {
      let returns = 0;
      const queue = new AsyncQueue<number>({ onReturn: () => void returns++ });
      queue.push(1);
      queue.end();
      await queue.return();
      expect(returns).toBe(0);
    });

    it('should stay done when the producer fails afterwards', async () => {
      const queue = new AsyncQueue<number>();
      queue.push(1);
      await queue.return();
      // The producer learns of the stop only later (the socket closes) and reports it as a failure.
      queue.fail(new Error('socket closed'));
      expect(await queue.next()).toEqual({ done: true, value: undefined });
      expect(await queue.readBatch()).toBeUndefined();
    });
  });

  describe('when the consumer lags highWaterMark values behind', () => {
    it('should pause the producer, and resume it once the buffer is down to half', async () => {
      const calls: string[] = [];
      const queue = new AsyncQueue<number>({
        highWaterMark: 4,
        onPause: () => calls.push('pause'),
        onResume: () => calls.push('resume'),
      });
      queue.pushAll([1, 2, 3, 4, 5]);
      expect(calls).toEqual(['pause']);
      await queue.next();
      expect(calls).toEqual(['pause']);
      await queue.next();
      await queue.next();
      expect(calls).toEqual(['pause', 'resume']);
      queue.pushAll([6, 7]);
      expect(calls).toEqual(['pause', 'resume', 'pause']);
      expect(await queue.readBatch()).toEqual([4, 5, 6, 7]);
      expect(calls).toEqual(['pause', 'resume', 'pause', 'resume']);
    });
  });
});
