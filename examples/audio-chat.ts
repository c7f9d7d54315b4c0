/**
 * Audio in, audio out: send a spoken question (a wav file) to an end-to-end audio model and save the
 * spoken answer as a wav file (under .artifacts/examples/, git-ignored).
 * Run: npx tsx examples/audio-chat.ts
 */
import { writeFile } from 'node:fs/promises';
import { audioPart } from '../src/index.js';
import { connect } from './support/connect.js';
import { outputPath } from './support/output-path.js';
import { toneWav } from './support/tone-wav.js';

const { client, close } = await connect();

// Your recording goes here: audioPart('question.wav') reads and checks a file (wav or mp3 only).
const question = audioPart(toneWav({ seconds: 1 }));

const completion = await client.chat.completions.create({
  model: 'svc-audio-2',
  modalities: ['text', 'audio'],
  audio: { voice: 'qingchunshaonv', format: 'wav' }, // wav needs stream: false; streams use pcm
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Please answer this question:' }, question] }],
});

const audio = completion.choices[0]?.message.audio;
if (!audio) throw new Error('the model sent no audio');
const answer = await outputPath('answer.wav');
await writeFile(answer.path, Buffer.from(audio.data, 'base64'));
console.log(`transcript: ${audio.transcript}`);
console.log(`wrote ${answer.shown} (${Buffer.from(audio.data, 'base64').length} bytes)`);
await close();
