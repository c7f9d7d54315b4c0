/**
 * The README's audio-out and plan-channel agent snippets, run for real against the emulator. Each
 * `// #region name` is copied verbatim into README.md (test/examples/readme.test.ts checks it).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { Agent, SvcClient, writeWavFile } from '../../src/index.js';

describe('README voice and plan snippets', () => {
  let service: Emulator;
  let client: SvcClient;
  let dir: string;

  beforeAll(async () => {
    service = await startEmulator({ port: 0 });
    client = new SvcClient({ apiKey: service.apiKey, baseURL: service.baseURL });
    dir = await mkdtemp(join(tmpdir(), 'svc-readme-voice-'));
  });
  afterAll(async () => {
    await client.close();
    await service.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('should write the spoken answer of a run to a wav file', async () => {
    const answerFile = join(dir, 'answer.wav');
    // #region audio-out
    const speaker = new Agent({
      client,
      model: 'svc-audio-2',
      modelSettings: { modalities: ['text', 'audio'], audio: { voice: 'qingchunshaonv', format: 'wav' } },
    });
    const spoken = await speaker.run('Say good morning to the team.');
    if (spoken.audio) {
      await writeWavFile(answerFile, spoken.audio); // a playable wav, streamed (pcm) or not
      console.log(spoken.audio.transcript);
    }
    // #endregion
    expect(spoken.audio?.transcript).toBe(spoken.text);
    expect((await readFile(answerFile)).toString('latin1', 0, 4)).toBe('RIFF');
  });

  it('should run an agent on the plan channel', async () => {
    // #region plan-agent
    const planner = new Agent({ client, model: 'svc-router-v1', channel: 'plan' });
    const { text } = await planner.run('Plan a three-step rollout for the new billing page.');
    // #endregion
    expect(text).toBeTruthy();
    expect(service.requests().map((r) => r.path)).toContain('/svc_plan/v1/chat/completions');
  });
});
