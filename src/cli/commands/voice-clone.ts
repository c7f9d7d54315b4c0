import { writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { VoiceCreateParams, VoiceModel } from '../../api/types/voices.js';
import type { CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { defaultVoiceModel, resolveInputFile } from './utils.js';

/** `svc-agents voice clone sample.wav --model svc-tts-mini`. */
export const voiceCloneCommand: CommandSpec = {
  path: ['voice', 'clone'],
  summary: 'clone a voice from 5-10 s of wav or mp3 audio',
  usage: 'voice clone <sample.wav> [--model svc-tts-mini] [--text <transcript>] [--preview out.wav]',
  positionals: { min: 1, max: 1 },
  options: {
    model: {
      type: 'string',
      short: 'm',
      valueName: '<id>',
      description: `svc-tts-2, svc-tts-mini or svc-tts-vivid (default ${defaultVoiceModel})`,
    },
    text: {
      type: 'string',
      valueName: '<text>',
      description: 'transcript of the sample (default: recognised)',
    },
    'sample-text': {
      type: 'string',
      valueName: '<text>',
      description: 'text of the preview, at most 50 characters',
    },
    preview: {
      type: 'string',
      valueName: '<file>',
      description: 'write the preview audio (wav) to this file',
    },
  },
  async run(ctx, args) {
    const path = await resolveInputFile(ctx.io.cwd, args.positionals[0] as string);
    const { client } = await connect(ctx);
    const file = await client.files.upload({ file: path, purpose: 'storage' });
    const params: VoiceCreateParams = {
      model: ((args.values.model as string | undefined) ?? defaultVoiceModel) as VoiceModel,
      file_id: file.id,
    };
    if (typeof args.values.text === 'string') params.text = args.values.text;
    if (typeof args.values['sample-text'] === 'string') params.sample_text = args.values['sample-text'];
    const voice = await client.audio.voices.create(params);
    let previewFile: string | undefined;
    if (typeof args.values.preview === 'string' && voice.sample_audio) {
      previewFile = resolve(ctx.io.cwd, args.values.preview);
      await writeFile(previewFile, Buffer.from(voice.sample_audio, 'base64'));
    }
    if (ctx.json) {
      ctx.printJson({
        id: voice.id,
        fileId: file.id,
        duplicated: voice.duplicated ?? false,
        preview: previewFile,
      });
    } else {
      ctx.io.stdout.write(
        `cloned voice ${voice.id} from ${basename(path)}${voice.duplicated ? ' (already cloned before)' : ''}\n`,
      );
      if (previewFile) ctx.io.stdout.write(`wrote preview ${previewFile}\n`);
    }
    return 0;
  },
};
