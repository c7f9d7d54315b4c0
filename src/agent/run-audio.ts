import { writeFile } from 'node:fs/promises';
import { isWav, pcmToWav } from '../api/audio/pcm-to-wav.js';

/** The spoken answer of a turn: a playable wav file (base64) and what it says. */
export interface RunAudio {
  /** Base64 of a complete wav file: a `wav` answer as sent, or a stream's `pcm` pieces behind a wav header. */
  data: string;
  /** Always `wav`: streamed pcm is wrapped, so every result plays the same way. */
  format: 'wav';
  /** The text of the audio, as the service transcribed it. */
  transcript: string;
}

/**
 * The audio of a completion message as a wav. A non-streamed answer already is a wav; a stream's pieces
 * (joined by the accumulator) are headerless 24 kHz mono 16-bit pcm and get a header. The bytes tell
 * which, so no request setting has to travel with the answer.
 */
export function toRunAudio(audio: { data: string; transcript: string } | undefined): RunAudio | undefined {
  if (!audio?.data) return undefined;
  const bytes = Buffer.from(audio.data, 'base64');
  const wav = isWav(bytes) ? audio.data : pcmToWav(bytes).toString('base64');
  return { data: wav, format: 'wav', transcript: audio.transcript };
}

/**
 * Writes a run's (or a step's) audio to a file that any player opens.
 * @example await writeWavFile('answer.wav', result.audio!)
 */
export async function writeWavFile(path: string, audio: RunAudio): Promise<void> {
  await writeFile(path, Buffer.from(audio.data, 'base64'));
}
