import { describe, expect, it } from 'vitest';
import { decodeSignal, encodeSignal, signalChannelOf } from '../../src/stores/postgres-signals.js';

describe('postgres signal payloads', () => {
  describe('when a signal is encoded', () => {
    it('should decode to the same channel and message, whatever they contain', () => {
      const cases: [string, string][] = [
        ['run:42', 'appended'],
        ['12:34', '56:78'],
        ['é:ü', ''],
        ['c', '{"a":"b\\n"}'],
        ['x'.repeat(200), 'é'.repeat(2000)],
      ];
      for (const [channel, message] of cases) {
        expect(decodeSignal(encodeSignal(channel, message))).toEqual({ channel, message });
      }
    });

    it('should ignore a payload it did not write', () => {
      for (const payload of ['', 'no colon', 'x:abc', '99:short', ':abc', '-1:abc']) {
        expect(decodeSignal(payload), payload).toBeUndefined();
      }
    });
  });

  describe('when a schema names its channel', () => {
    it('should give a PostgreSQL identifier of at most 63 bytes, distinct per schema', () => {
      const long = 'a_schema_name_that_is_long_enough_to_be_cut_somewhere';
      const names = [signalChannelOf('svc_agents'), signalChannelOf(long), signalChannelOf(`${long}_2`)];
      for (const name of names) expect(name).toMatch(/^[a-z0-9_]{1,63}$/i);
      expect(new Set(names).size).toBe(3);
      expect(signalChannelOf('svc_agents')).toBe(signalChannelOf('svc_agents'));
    });
  });
});
