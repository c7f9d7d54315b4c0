/**
 * Text to image: generate a PNG and save it (under .artifacts/examples/, git-ignored).
 * Run: npx tsx examples/image.ts
 */
import { writeFile } from 'node:fs/promises';
import { connect } from './support/connect.js';
import { outputPath } from './support/output-path.js';

const { client, close } = await connect();

const { data } = await client.images.generate({
  model: 'svc-1x-medium',
  prompt: 'A lighthouse on a cliff at sunset, watercolour',
  size: '512x512',
  seed: 42, // same seed, similar image
  response_format: 'b64_json',
});
const [image] = data;
if (!image?.image) throw new Error('no image returned');
if (image.finish_reason === 'content_filtered') console.warn('the content check stopped this image');
const png = await outputPath('lighthouse.png');
await writeFile(png.path, Buffer.from(image.image, 'base64'));
console.log(`wrote ${png.shown} (seed ${image.seed})`);
await close();
