import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { addAbortListener, removeAbortListener } from '../../src/core/abort-listeners.js';

describe('addAbortListener', () => {
  describe('when many calls subscribe to one signal', () => {
    it('should add a single real listener and call every live subscriber once on abort', () => {
      const controller = new AbortController();
      const calls: string[] = [];
      const subscribers = Array.from({ length: 50 }, (_, i) => () => calls.push(`s${i}`));
      for (const subscriber of subscribers) addAbortListener(controller.signal, subscriber);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);

      for (const subscriber of subscribers.slice(10)) removeAbortListener(controller.signal, subscriber);
      controller.abort();
      controller.abort();
      expect(calls).toEqual(Array.from({ length: 10 }, (_, i) => `s${i}`));
    });
  });

  describe('when a subscription ends before the abort', () => {
    it('should not call it, and removing an unknown listener is harmless', () => {
      const controller = new AbortController();
      let called = 0;
      const listener = () => called++;
      removeAbortListener(controller.signal, listener);
      addAbortListener(controller.signal, listener);
      removeAbortListener(controller.signal, listener);
      controller.abort();
      expect(called).toBe(0);
    });
  });

  describe('when the last subscriber leaves', () => {
    it('should remove the real listener, and add it again for the next subscriber', () => {
      const controller = new AbortController();
      const first = () => {};
      const second = () => {};
      addAbortListener(controller.signal, first);
      addAbortListener(controller.signal, second);
      removeAbortListener(controller.signal, first);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      removeAbortListener(controller.signal, second);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

      let called = 0;
      addAbortListener(controller.signal, () => called++);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      controller.abort();
      expect(called).toBe(1);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });
  });

  describe('when a signal aborted and a later call subscribes to a new one', () => {
    it('should listen to each signal on its own', () => {
      const first = new AbortController();
      const second = new AbortController();
      const calls: string[] = [];
      addAbortListener(first.signal, () => calls.push('first'));
      addAbortListener(second.signal, () => calls.push('second'));
      second.abort();
      expect(calls).toEqual(['second']);
      first.abort();
      expect(calls).toEqual(['second', 'first']);
    });
  });
});
