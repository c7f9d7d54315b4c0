/**
 * Voice cloning: upload 5-10 seconds of speech, clone the voice, list your voices. Files go under
 * .artifacts/examples/ (git-ignored).
 * Run: npx tsx examples/voice-clone.ts
 */
import { writeFile } from 'node:fs/promises';
import { connect } from './support/connect.js';
import { outputPath } from './support/output-path.js';
import { toneWav } from './support/tone-wav.js';

const { client, close } = await connect();

// Use your own recording here (wav or mp3, 5 to 10 seconds).
const sample = await outputPath('sample.wav');
await writeFile(sample.path, toneWav({ seconds: 6 }));
const file = await client.files.upload({ file: sample.path, purpose: 'storage' });

const voice = await client.audio.voices.create({
  model: 'svc-tts-mini',
  file_id: file.id,
  text: 'Hello, this is my voice.', // the transcript; omit it to let the service recognise it
  sample_text: 'Nice to meet you.',
});
console.log(`cloned voice ${voice.id}${voice.duplicated ? ' (already cloned before)' : ''}`);
if (voice.sample_audio) {
  const preview = await outputPath('voice-preview.wav');
  await writeFile(preview.path, Buffer.from(voice.sample_audio, 'base64'));
  console.log(`wrote ${preview.shown}`);
}

// Every page of your voices, fetched as needed.
for await (const v of client.audio.voices.list()) console.log(`voice ${v.id} from file ${v.file_id}`);
await close();
