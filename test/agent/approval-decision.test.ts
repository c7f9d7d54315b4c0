import { describe, expect, it } from 'vitest';
import { checkApprovalDecisions } from '../../src/agent/approval-decision.js';
import { RunState } from '../../src/agent/run-state.js';
import { ConfigurationError } from '../../src/core/errors.js';
import { RunQueue } from '../../src/queue/run-queue.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { applyDecisions } from '../../src/web/apply-decisions.js';

const BAD: Array<[unknown, string]> = [
  [[], 'decisions: must be a non-empty array'],
  [[{ toolCallId: 'c1' }], 'decisions[0].approved: required boolean'],
  [[{ approved: true }], 'decisions[0].toolCallId: required string'],
  [[{ toolCallId: 'c1', approved: false, reason: 7 }], 'decisions[0].reason: must be a string'],
];

describe('approval decisions', () => {
  describe('when a decision is malformed', () => {
    it('should be refused with the same field and rule by the queue and the web handler', async () => {
      const queue = new RunQueue({ connection: 'redis://127.0.0.1:6379', store: memoryStore() });
      try {
        for (const [decisions, message] of BAD) {
          expect(() => checkApprovalDecisions(decisions)).toThrow(ConfigurationError);
          await expect(queue.decide('run-1', decisions as never)).rejects.toMatchObject({
            name: 'ConfigurationError',
            message,
          });
          expect(() => applyDecisions(new RunState({ messages: [] }), decisions)).toThrow(message);
        }
      } finally {
        await queue.close();
      }
    });
  });

  describe('when decisions are well formed', () => {
    it('should keep toolCallId, approved and a reason only when given', () => {
      expect(
        checkApprovalDecisions([
          { toolCallId: 'c1', approved: true },
          { toolCallId: 'c2', approved: false, reason: 'no' },
        ]),
      ).toEqual([
        { toolCallId: 'c1', approved: true },
        { toolCallId: 'c2', approved: false, reason: 'no' },
      ]);
    });
  });
});
