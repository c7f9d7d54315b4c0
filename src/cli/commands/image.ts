import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ImageGenerateParams, ImageSize } from '../../api/types/images.js';
import type { CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { CliUsageError } from '../errors.js';
import { defaultImageModel } from './utils.js';

/** `svc-agents image "prompt" -o out.png [--size 512x512 --seed N]`. */
export const imageCommand: CommandSpec = {
  path: ['image'],
  summary: 'generate an image from a prompt and write it to a PNG file',
  usage: 'image <prompt> [-o out.png] [--size 512x512] [--seed N]',
  positionals: { min: 1 },
  options: {
    output: {
      type: 'string',
      short: 'o',
      valueName: '<file>',
      description: 'where to write the image (default image.png)',
    },
    size: {
      type: 'string',
      valueName: '<WxH>',
      description: '256x256, 512x512, 768x768, 1024x1024 (default), 1280x800 or 800x1280',
    },
    seed: {
      type: 'string',
      valueName: '<N>',
      description: 'seed for a reproducible image (0 or none: random)',
    },
    model: {
      type: 'string',
      short: 'm',
      valueName: '<id>',
      description: `model id (default ${defaultImageModel})`,
    },
  },
  async run(ctx, args) {
    const params: ImageGenerateParams = {
      model: (args.values.model as string | undefined) ?? defaultImageModel,
      prompt: args.positionals.join(' '),
      response_format: 'b64_json',
    };
    if (typeof args.values.size === 'string') params.size = args.values.size as ImageSize;
    if (typeof args.values.seed === 'string') {
      const seed = Number(args.values.seed);
      if (!Number.isSafeInteger(seed) || seed < 0) {
        throw new CliUsageError(`--seed must be a non-negative integer, got "${args.values.seed}"`, 'image');
      }
      params.seed = seed;
    }
    const output = resolve(ctx.io.cwd, (args.values.output as string | undefined) ?? 'image.png');
    const { client } = await connect(ctx);
    const generation = await client.images.generate(params);
    const item = generation.data[0];
    if (!item?.image) throw new Error('the service returned no image data');
    const bytes = Buffer.from(item.image, 'base64');
    await writeFile(output, bytes);
    const size = params.size ?? '1024x1024';
    if (ctx.json) {
      ctx.printJson({
        file: output,
        bytes: bytes.length,
        size,
        seed: item.seed,
        finishReason: item.finish_reason,
      });
    } else {
      ctx.io.stdout.write(`wrote ${output} (${size}, seed ${item.seed}, ${bytes.length} bytes)\n`);
      if (item.finish_reason === 'content_filtered') {
        ctx.io.stderr.write(
          'warning: the image was stopped by the content check (finish_reason content_filtered)\n',
        );
      }
    }
    return 0;
  },
};
