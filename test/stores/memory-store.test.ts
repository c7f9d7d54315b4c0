import { describe, expect, it } from 'vitest';
import type { RunRecordInput } from '../../src/agent/durable/store.js';
import { ConfigurationError } from '../../src/core/errors.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { createTestClock } from '../helpers/test-clock.js';

function createRecord(id: string, overrides: Partial<RunRecordInput> = {}): RunRecordInput {
  return { id, agentName: 'support', status: 'running', state: {}, interruptions: [], ...overrides };
}

describe('memoryStore', () => {
  describe('when more sessions than maxSessions are written', () => {
    it('should evict the least recently used session', async () => {
      const store = memoryStore({ maxSessions: 2 });
      await store.addItems('s1', [{ role: 'user', content: 'one' }]);
      await store.addItems('s2', [{ role: 'user', content: 'two' }]);
      // Reading s1 makes s2 the least recently used.
      expect(await store.getItems('s1')).toHaveLength(1);
      await store.addItems('s3', [{ role: 'user', content: 'three' }]);
      expect(await store.getItems('s1')).toHaveLength(1);
      expect(await store.getItems('s2')).toEqual([]);
      expect(await store.getItems('s3')).toHaveLength(1);
    });
  });

  describe('when more runs than maxRuns are written', () => {
    it('should evict the least recently used run and event log', async () => {
      const store = memoryStore({ maxRuns: 2 });
      await store.createRun(createRecord('r1'));
      await store.createRun(createRecord('r2'));
      await store.getRun('r1');
      await store.createRun(createRecord('r3'));
      expect(await store.getRun('r2')).toBeUndefined();
      expect((await store.listRuns()).map((run) => run.id).sort()).toEqual(['r1', 'r3']);
      await store.appendRunEvents!('r1', 0, ['a']);
      await store.appendRunEvents!('r2', 0, ['b']);
      await store.appendRunEvents!('r3', 0, ['c']);
      expect(await store.readRunEvents!('r1')).toEqual([]);
      expect(await store.readRunEvents!('r3')).toEqual([{ id: 0, data: 'c' }]);
    });
  });

  describe('when more values than maxValues are written', () => {
    it('should evict the least recently used value', async () => {
      const store = memoryStore({ maxValues: 2 });
      await store.setValueIf!('k1', 0, 'one');
      await store.setValueIf!('k2', 0, 'two');
      await store.setValueIf!('k3', 0, 'three');
      expect(await store.getValue!('k1')).toEqual({ value: undefined, version: 0 });
      expect(await store.getValue!('k3')).toEqual({ value: 'three', version: 1 });
    });
  });

  describe('when entries stay idle past idleTtlMs', () => {
    it('should drop sessions, runs, event logs and values, keeping the ones in use', async () => {
      const clock = createTestClock(1_000_000);
      const store = memoryStore({ idleTtlMs: 1000, clock });
      await store.addItems('idle', [{ role: 'user', content: 'x' }]);
      await store.addItems('busy', [{ role: 'user', content: 'y' }]);
      await store.createRun(createRecord('run-idle'));
      await store.appendRunEvents!('run-idle', 0, ['e']);
      await store.setValueIf!('value-idle', 0, 'v');
      clock.advance(600);
      await store.getItems('busy');
      clock.advance(600);
      expect(await store.getItems('idle')).toEqual([]);
      expect(await store.getItems('busy')).toHaveLength(1);
      expect(await store.getRun('run-idle')).toBeUndefined();
      expect(await store.listRuns()).toEqual([]);
      expect(await store.readRunEvents!('run-idle')).toEqual([]);
      expect(await store.getValue!('value-idle')).toEqual({ value: undefined, version: 0 });
    });
  });

  describe('when its clock moves past a ttl', () => {
    it('should read a value and an event log as absent, with no sleep', async () => {
      const clock = createTestClock();
      const store = memoryStore({ clock });
      await store.setValueIf('session-lease', 0, 'owner', { ttlMs: 60_000 });
      await store.appendRunEvents('run', 0, ['e0'], { ttlMs: 60_000 });
      clock.advance(59_000);
      expect(await store.getValue('session-lease')).toEqual({ value: 'owner', version: 1 });
      expect(await store.readRunEvents('run')).toHaveLength(1);
      clock.advance(2_000);
      expect(await store.getValue('session-lease')).toEqual({ value: undefined, version: 0 });
      expect(await store.readRunEvents('run')).toEqual([]);
    });

    it('should prune a finished run once the clock passes its retention', async () => {
      const clock = createTestClock();
      const store = memoryStore({ clock, retentionMs: 60_000 });
      await store.createRun(createRecord('done', { status: 'completed' }));
      await store.createRun(createRecord('live'));
      clock.advance(59_000);
      expect(await store.pruneRuns()).toEqual({ deleted: 0 });
      clock.advance(2_000);
      expect(await store.pruneRuns()).toEqual({ deleted: 1 });
      expect((await store.listRuns()).map((record) => record.id)).toEqual(['live']);
    });
  });

  describe('when a bound is invalid', () => {
    it('should throw a ConfigurationError naming the option', () => {
      for (const option of ['maxSessions', 'maxRuns', 'maxValues', 'idleTtlMs'] as const) {
        expect(() => memoryStore({ [option]: 0 })).toThrow(ConfigurationError);
        expect(() => memoryStore({ [option]: 0 })).toThrow(
          new RegExp(`^${option}: must be a positive integer`),
        );
      }
    });
  });
});
