import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, type AgentInput } from '../../../src/agent/agent.js';
import { RunState } from '../../../src/agent/run-state.js';
import { SvcClient } from '../../../src/api/svc-client.js';
import { APIError } from '../../../src/core/errors.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { Emulator } from '../../../src/emulator/types.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { sharedStateBackends } from '../../helpers/shared-state-backends.js';

// The README's retry loop, on an agent with a store: a run that fails midway is resumed from `error.state`
// (typed: no cast) and the store keeps one record for it, which ends completed.
for (const backend of sharedStateBackends) {
  describe.skipIf(!backend.available)(`the README retry loop on ${backend.name}`, () => {
    let emu: Emulator;
    let client: SvcClient;
    beforeAll(async () => {
      emu = await startEmulator({ port: 0 });
      client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL, maxRetries: 0 });
    });
    afterAll(async () => {
      await client.close();
      await emu.close();
    });

    it('should leave one record, completed, with the failure naming it by runId and state', async () => {
      const opened = await backend.open({ onWarning: () => undefined });
      const store = opened.a;
      let weatherCalls = 0;
      const getWeather = defineTool({
        name: 'get_weather',
        description: 'Get the current weather in a city.',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => {
          weatherCalls++;
          return { city, condition: 'light rain' };
        },
      });
      const agent = new Agent({ client, model: 'svc-3.5-flash', tools: [getWeather], store });
      emu.script([
        {
          message: {
            content: '',
            tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
          },
        },
        { error: { status: 503 } },
        { message: { content: 'Light rain in Paris.' } },
      ]);
      const failures: APIError[] = [];
      try {
        let input: AgentInput = 'What is the weather in Paris?';
        for (let attempt = 1; ; attempt++) {
          try {
            const done = await agent.run(input);
            expect(done.text).toBe('Light rain in Paris.');
            break;
          } catch (error) {
            if (!(error instanceof APIError) || !error.isRetryable || attempt === 3) throw error;
            failures.push(error);
            input = error.state ?? input;
          }
        }

        const runs = await store.listRuns();
        expect(runs.map((run) => run.status)).toEqual(['completed']);
        expect(failures).toHaveLength(1);
        expect(failures[0]!.runId).toBe(runs[0]!.id);
        expect(failures[0]!.state).toBeInstanceOf(RunState);
        expect(weatherCalls).toBe(1);
      } finally {
        await opened.cleanup();
      }
    });
  });
}
