import { invalidParams } from '../errors.js';
import { readAudioDuration } from '../media/audio-duration.js';
import { hashString } from '../media/png.js';
import { pcmToWav, synthesizePcm } from '../media/wav.js';
import { paginate } from '../pagination.js';
import { json, type Reply } from '../reply.js';
import type { RouteContext } from '../route-context.js';
import type { VoiceRecord } from '../state.js';
import { objectBody, validateBody } from '../validate.js';
import { getFile } from './files.js';

const DEFAULT_SAMPLE_TEXT = 'Hello! This is a preview of the cloned voice.';

/** `POST /v1/audio/voices`: clones a voice from a 5-10 s `storage` wav/mp3. */
export function createVoice(ctx: RouteContext): Reply {
  const body = objectBody(ctx.body);
  validateBody.voiceClone(body);
  const file = getFile(ctx.state, body.file_id as string);
  if (file.purpose !== 'storage')
    throw invalidParams(`file_id: must be a file of purpose "storage", not "${file.purpose}"`);
  const seconds = readAudioDuration(ctx.state.content(file.id) ?? Buffer.alloc(0));
  if (seconds === undefined) throw invalidParams('file_id: the file is not a wav or mp3 audio file');
  if (seconds < 5 || seconds > 10) {
    throw invalidParams(`file_id: audio lasts ${seconds.toFixed(2)} s; it must last 5 to 10 seconds`);
  }
  const sampleText = (body.sample_text as string | undefined) ?? DEFAULT_SAMPLE_TEXT;
  const key = JSON.stringify([body.model, file.id, body.text ?? null]);
  const existing = [...ctx.state.voices.values()].find((v) => v.key === key);
  const sampleAudio = pcmToWav(synthesizePcm(sampleText)).toString('base64');
  if (existing) {
    return json({
      id: existing.id,
      object: 'audio.voice',
      duplicated: true,
      sample_text: sampleText,
      sample_audio: sampleAudio,
    });
  }
  const voice: VoiceRecord = {
    id: `voice-tone-${hashString(key).toString(16)}${ctx.state.nextSeq().toString(16)}`,
    file_id: file.id,
    created_at: Math.floor(Date.now() / 1000),
    model: body.model as string,
    key,
    sample_text: sampleText,
    seq: ctx.state.nextSeq(),
  };
  ctx.state.voices.set(voice.id, voice);
  ctx.state.commit();
  return json({ id: voice.id, object: 'audio.voice', sample_text: sampleText, sample_audio: sampleAudio });
}

/** `GET /v1/audio/voices` with cursors (voice ids). */
export function listVoices(ctx: RouteContext): Reply {
  const voices = [...ctx.state.voices.values()]
    .sort((a, b) => a.seq - b.seq)
    // The spec's Voice has these three fields only (no `object`, unlike the clone response).
    .map((v) => ({ id: v.id, file_id: v.file_id, created_at: v.created_at }));
  return json(paginate(voices, ctx.query));
}
