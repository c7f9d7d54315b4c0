import { PCM_SAMPLE_RATE } from '../../api/audio/pcm-to-wav.js';
import { hashString } from './png.js';

/** The emulator writes wav files the way the client assembles them. */
export { pcmToWav } from '../../api/audio/pcm-to-wav.js';

/** Sample rate of all emulated speech: the service's pcm format (24 kHz, mono, 16-bit). */
export const SPEECH_SAMPLE_RATE = PCM_SAMPLE_RATE;
const MAX_SECONDS = 20;

/**
 * Deterministic "speech" for a text: one short sine tone per word (pitch from the word), with pauses.
 * Returns raw little-endian 16-bit mono PCM at 24 kHz.
 */
export function synthesizePcm(text: string): Buffer {
  const words = text.split(/\s+/).filter(Boolean);
  const parts: Buffer[] = [];
  let total = 0;
  for (const word of words.length > 0 ? words : ['.']) {
    const seconds = Math.min(0.4, 0.05 + word.length * 0.04);
    const tone = toneSamples(180 + (hashString(word.toLowerCase()) % 420), seconds);
    const pause = Buffer.alloc(Math.round(SPEECH_SAMPLE_RATE * 0.05) * 2);
    total += tone.length + pause.length;
    if (total > MAX_SECONDS * SPEECH_SAMPLE_RATE * 2) break;
    parts.push(tone, pause);
  }
  return Buffer.concat(parts);
}

function toneSamples(frequency: number, seconds: number): Buffer {
  const count = Math.round(SPEECH_SAMPLE_RATE * seconds);
  const out = Buffer.alloc(count * 2);
  const fade = Math.min(120, count / 4);
  for (let i = 0; i < count; i++) {
    const envelope = Math.min(1, i / fade, (count - i) / fade);
    const value = Math.sin((2 * Math.PI * frequency * i) / SPEECH_SAMPLE_RATE) * 0.3 * envelope;
    out.writeInt16LE(Math.round(value * 32767), i * 2);
  }
  return out;
}
