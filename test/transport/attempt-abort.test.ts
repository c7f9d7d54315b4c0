import { describe, expect, it, vi } from 'vitest';
import { AttemptAbort } from '../../src/transport/attempt-abort.js';

describe('AttemptAbort', () => {
  describe('when aborted', () => {
    it('should set the reason and call each remaining listener once', () => {
      const abort = new AttemptAbort();
      const kept = vi.fn();
      const removed = vi.fn();
      abort.once('abort', kept);
      abort.on('abort', removed);
      abort.removeListener('abort', removed);
      const reason = new Error('stop');
      abort.abort(reason);
      abort.abort(new Error('again'));
      expect(abort.aborted).toBe(true);
      expect(abort.reason).toBe(reason);
      expect(kept).toHaveBeenCalledTimes(1);
      expect(removed).not.toHaveBeenCalled();
    });
  });

  describe('when never aborted', () => {
    it('should stay quiet', () => {
      const abort = new AttemptAbort();
      const listener = vi.fn();
      abort.once('abort', listener);
      abort.off('abort', listener);
      expect(abort.aborted).toBe(false);
      expect(abort.reason).toBeUndefined();
      expect(listener).not.toHaveBeenCalled();
    });
  });
});
