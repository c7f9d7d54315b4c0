import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const soakScript = join(import.meta.dirname, '../../scripts/soak.ts');

// CI size: the heap after GC at run 1,000 against run 3,000. `npm run soak`-sized (20,000 runs) is the
// script itself: node --expose-gc --import tsx scripts/soak.ts 0 64 20000.
const RUNS = 3_000;
const MAX_GROWTH_BYTES = 2 ** 20;

interface AgentRunsReport {
  runs: number;
  ok: number;
  unexpected: number;
  growthBytes: number;
  heapAt: Record<string, string>;
  gcExposed: boolean;
}

/** Runs the soak's agent part in its own process (a heap of its own, and `gc()` exposed). */
function runAgentSoak(runs: number): Promise<{ code: number | null; report: AgentRunsReport }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', soakScript, '0', '64', String(runs)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      out += text;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      try {
        const { agentRuns } = JSON.parse(out) as { agentRuns: AgentRunsReport };
        resolve({ code, report: agentRuns });
      } catch (error) {
        reject(new Error(`the soak printed no report (exit ${code}): ${out}`, { cause: error }));
      }
    });
  });
}

describe('agent run soak', () => {
  describe('when thousands of streamed runs start tools early, pause for approvals and pass guardrails', () => {
    it('should keep the heap after GC flat from run 1,000 on', { timeout: 240_000 }, async () => {
      const { code, report } = await runAgentSoak(RUNS);

      expect(report.gcExposed).toBe(true);
      expect(report.unexpected).toBe(0);
      expect(report.ok).toBe(RUNS);
      expect(report.growthBytes, JSON.stringify(report.heapAt)).toBeLessThan(MAX_GROWTH_BYTES);
      expect(code).toBe(0);
    });
  });
});
