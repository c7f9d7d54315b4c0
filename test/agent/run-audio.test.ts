import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeWavFile } from '../../src/agent/run-audio.js';
import { RunState } from '../../src/agent/run-state.js';
import { createTestAgent } from '../helpers/create-test-agent.js';
import { useAgentTestEnv } from '../helpers/use-agent-test-env.js';

const env = useAgentTestEnv();

/** The fields of a wav header a player reads, and the length of its samples. */
function readWav(base64: string) {
  const bytes = Buffer.from(base64, 'base64');
  return {
    riff: bytes.toString('latin1', 0, 4),
    wave: bytes.toString('latin1', 8, 12),
    sampleRate: bytes.readUInt32LE(24),
    channels: bytes.readUInt16LE(22),
    bitsPerSample: bytes.readUInt16LE(34),
    dataBytes: bytes.readUInt32LE(40),
    totalBytes: bytes.length,
  };
}

const voice = { voice: 'qingchunshaonv' } as const;

describe('RunResult.audio', () => {
  describe('when an audio model answers a non-streamed run with wav', () => {
    it('should put the wav and its transcript on the result and on the step', async () => {
      const agent = createTestAgent(env, {
        model: 'svc-audio-2',
        modelSettings: { modalities: ['text', 'audio'], audio: { ...voice, format: 'wav' } },
      });
      const result = await agent.run('Say hello to the team');
      expect(result.audio).toBeDefined();
      expect(result.audio?.format).toBe('wav');
      expect(result.audio?.transcript).toBe(result.text);
      expect(result.steps.at(-1)?.audio).toEqual(result.audio);
      const wav = readWav(result.audio!.data);
      expect(wav).toMatchObject({
        riff: 'RIFF',
        wave: 'WAVE',
        sampleRate: 24_000,
        channels: 1,
        bitsPerSample: 16,
      });
      expect(wav.dataBytes).toBe(wav.totalBytes - 44);
      expect(wav.dataBytes).toBeGreaterThan(0);
    });
  });

  describe('when an audio model streams pcm', () => {
    it('should assemble the pcm pieces into one playable wav', async () => {
      const agent = createTestAgent(env, {
        model: 'svc-audio-2',
        modelSettings: { modalities: ['text', 'audio'], audio: { ...voice, format: 'pcm' } },
      });
      const stream = agent.stream('Say hello to the team');
      const pieces: string[] = [];
      for await (const event of stream) if (event.type === 'audio-delta') pieces.push(event.data);
      const result = await stream.result;
      const pcmBytes = pieces.reduce((sum, piece) => sum + Buffer.from(piece, 'base64').length, 0);
      expect(pieces.length).toBeGreaterThan(1);
      const wav = readWav(result.audio!.data);
      expect(wav).toMatchObject({
        riff: 'RIFF',
        wave: 'WAVE',
        sampleRate: 24_000,
        channels: 1,
        bitsPerSample: 16,
      });
      expect(wav.dataBytes).toBe(pcmBytes);
      expect(wav.totalBytes).toBe(pcmBytes + 44);
      expect(result.audio?.transcript).toBe(result.text);
    });
  });

  describe('when the run asks for text only', () => {
    it('should leave audio out of the result', async () => {
      const result = await createTestAgent(env).run('Hello');
      expect(result.audio).toBeUndefined();
      expect('audio' in result.steps[0]!).toBe(false);
    });
  });

  describe('when the state is saved and read back', () => {
    it('should keep each step audio', async () => {
      const agent = createTestAgent(env, {
        model: 'svc-audio-2',
        modelSettings: { modalities: ['text', 'audio'], audio: { ...voice, format: 'wav' } },
      });
      const result = await agent.run('Say hi');
      const restored = RunState.fromJSON(JSON.stringify(result.state), agent);
      expect(restored.steps[0]?.audio).toEqual(result.audio);
    });
  });
});

describe('writeWavFile', () => {
  describe('when given a run audio', () => {
    it('should write the wav bytes to the file', async () => {
      const agent = createTestAgent(env, {
        model: 'svc-audio-2',
        modelSettings: { modalities: ['text', 'audio'], audio: { ...voice, format: 'pcm' } },
      });
      const result = await agent.stream('Good morning').result;
      const dir = await mkdtemp(join(tmpdir(), 'svc-audio-'));
      try {
        const file = join(dir, 'answer.wav');
        await writeWavFile(file, result.audio!);
        const written = await readFile(file);
        expect(written.toString('latin1', 0, 4)).toBe('RIFF');
        expect(written.equals(Buffer.from(result.audio!.data, 'base64'))).toBe(true);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
