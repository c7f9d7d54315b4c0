import { describe, expect, it } from 'vitest';
import { LruMap } from '../../src/stores/lru-map.js';

describe('LruMap', () => {
  describe('when it holds more than maxEntries', () => {
    it('should evict the least recently used first', () => {
      const map = new LruMap<string, number>({ maxEntries: 3, idleTtlMs: 60_000 });
      map.set('a', 1);
      map.set('b', 2);
      map.set('c', 3);
      expect(map.get('a')).toBe(1);
      map.set('d', 4);
      expect(map.size).toBe(3);
      expect(map.get('b')).toBeUndefined();
      expect([...map.entries()].map(([key]) => key)).toEqual(['c', 'a', 'd']);
    });
  });

  describe('when an entry is idle past idleTtlMs', () => {
    it('should read as absent and be swept by the next write', () => {
      let now = 0;
      const map = new LruMap<string, number>({ maxEntries: 10, idleTtlMs: 100, now: () => now });
      map.set('old', 1);
      now = 50;
      map.set('young', 2);
      now = 120;
      expect([...map.values()]).toEqual([2]);
      // Reading skips it, but only a write sweeps it away.
      expect(map.size).toBe(2);
      map.set('new', 3);
      expect(map.size).toBe(2);
      expect(map.get('old')).toBeUndefined();
      now = 140;
      expect(map.get('young')).toBe(2);
      now = 230;
      expect(map.get('young')).toBe(2);
    });
  });
});
