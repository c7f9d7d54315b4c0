import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { z } from 'zod';
import type { ModelSettings } from '../../agent/model-settings.js';
import type { RunAudio } from '../../agent/run-audio.js';
import { audioPart } from '../../api/parts/audio-part.js';
import { imagePart } from '../../api/parts/image-part.js';
import { isHttpUrl } from '../../api/parts/read-part-bytes.js';
import { videoPart } from '../../api/parts/video-part.js';
import { endToEndAudioModelIds, planModelId, type presetVoices } from '../../api/schemas/model-ids.js';
import type { ContentPart } from '../../api/types/chat.js';
import type { Channel } from '../../api/types/request-options.js';
import { loadZod } from '../../core/load-module.js';
import type { OptionSpec, ParsedArgs } from '../command.js';
import { defaultChatModel, resolveInputFile } from '../commands/utils.js';
import { CliUsageError } from '../errors.js';

/** Model of `chat --audio-out` and `chat --audio` unless `--model` says otherwise: an end-to-end audio model. */
export const defaultAudioModel = 'svc-audio-2';

/** Model of `chat --image` and `chat --video` unless `--model` says otherwise: the vision model. */
export const defaultVisionModel = 'svc-1o-turbo-vision';

/** Voice of `chat --audio-out` unless `--voice` says otherwise: a preset voice of the svc-audio-2 models. */
export const defaultVoice: (typeof presetVoices)[number] = 'qingchunshaonv';

/** The `chat` flags that shape the request: media in, audio out, the plan channel, structured output. */
export const chatRequestOptions: Record<string, OptionSpec> = {
  image: {
    type: 'string',
    valueName: '<file|url>',
    multiple: true,
    description: `attach an image (png, jpeg, webp, static gif) to the first message (default model ${defaultVisionModel})`,
  },
  audio: {
    type: 'string',
    valueName: '<file>',
    multiple: true,
    description: `attach an mp3 or wav recording to the first message (default model ${defaultAudioModel})`,
  },
  video: {
    type: 'string',
    valueName: '<url>',
    multiple: true,
    description: `attach an http(s) address of an mp4 video to the first message (default model ${defaultVisionModel})`,
  },
  'audio-out': {
    type: 'string',
    valueName: '<file.wav>',
    description: `write the spoken answer to a wav file (default model ${defaultAudioModel})`,
  },
  voice: {
    type: 'string',
    valueName: '<name>',
    description: `voice of --audio-out (default ${defaultVoice}; svc-1o-audio takes a cloned voice id)`,
  },
  plan: {
    type: 'boolean',
    description: `send the chat on the plan channel (model ${planModelId}, billed in credits)`,
  },
  'json-schema': {
    type: 'string',
    valueName: '<file>',
    description: 'answer with JSON matching this JSON Schema (a schema, or { name, schema })',
  },
};

/** What the `chat` flags ask of the agent and of each answer. */
export interface ChatRequestFlags {
  model: string;
  channel: Channel;
  modelSettings: ModelSettings;
  /** Parts sent with the first message, already checked as the client checks them. */
  attachments: ContentPart[];
  /** The structured output's schema (`--json-schema`). */
  output: z.ZodType | undefined;
  /** Where the spoken answer goes (`--audio-out`), resolved against the working folder. */
  audioOut: string | undefined;
}

/**
 * Reads the request flags of `chat`, before any connection: every attachment is built with the client's
 * part helpers (a bad file or address fails here, naming the flag), and the model defaults to one that
 * can take what was attached.
 */
export async function readChatRequestFlags(
  values: ParsedArgs['values'],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<ChatRequestFlags> {
  const images = list(values.image);
  const audios = list(values.audio);
  const videos = list(values.video);
  const audioOut = typeof values['audio-out'] === 'string' ? resolve(cwd, values['audio-out']) : undefined;
  const plan = values.plan === true;
  if (typeof values.voice === 'string' && !audioOut) {
    throw new CliUsageError('--voice needs --audio-out <file.wav>', 'chat');
  }
  const attachments: ContentPart[] = [];
  for (const image of images) {
    const input = isHttpUrl(image) || image.startsWith('data:') ? image : await resolveInputFile(cwd, image);
    attachments.push(flagPart('--image', () => imagePart(input)));
  }
  for (const audio of audios) {
    const file = await resolveInputFile(cwd, audio);
    attachments.push(flagPart('--audio', () => audioPart(file)));
  }
  for (const video of videos) attachments.push(flagPart('--video', () => videoPart(video)));

  const explicit = typeof values.model === 'string' ? values.model : env.SVC_MODEL;
  const model =
    explicit ??
    (plan
      ? planModelId
      : audioOut || audios.length > 0
        ? defaultAudioModel
        : images.length > 0 || videos.length > 0
          ? defaultVisionModel
          : defaultChatModel);
  const modelSettings: ModelSettings = {};
  if (audioOut) {
    // The chat streams its answers, and a stream carries only pcm: the agent wraps it in a wav header.
    modelSettings.modalities = ['text', 'audio'];
    modelSettings.audio = {
      voice: typeof values.voice === 'string' ? values.voice : defaultVoice,
      format: 'pcm',
    };
  } else if (endToEndAudioModelIds.has(model)) {
    // End-to-end audio models require modalities; without --audio-out they answer in text.
    modelSettings.modalities = ['text'];
  }
  const output =
    typeof values['json-schema'] === 'string'
      ? await readOutputSchema(cwd, values['json-schema'])
      : undefined;
  return { model, channel: plan ? 'plan' : 'default', modelSettings, attachments, output, audioOut };
}

/** Writes an answer's audio to the `--audio-out` file; an answer without audio is an error naming the model. */
export async function writeAudioOut(
  file: string,
  audio: RunAudio | undefined,
  model: string,
): Promise<number> {
  if (!audio) {
    throw new Error(
      `${model} sent no audio: --audio-out needs an end-to-end audio model such as ${defaultAudioModel}`,
    );
  }
  const bytes = Buffer.from(audio.data, 'base64');
  await writeFile(file, bytes);
  return bytes.length;
}

function list(value: ParsedArgs['values'][string]): string[] {
  if (Array.isArray(value)) return value;
  return typeof value === 'string' ? [value] : [];
}

function flagPart(flag: string, build: () => ContentPart): ContentPart {
  try {
    return build();
  } catch (error) {
    throw new CliUsageError(`${flag}: ${(error as Error).message}`, 'chat');
  }
}

/** A JSON Schema file as the zod schema of the agent's structured output (`{ name, schema }` is accepted too). */
async function readOutputSchema(cwd: string, path: string): Promise<z.ZodType> {
  const file = await resolveInputFile(cwd, path);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (cause) {
    throw new CliUsageError(`--json-schema: ${path} is not valid JSON (${(cause as Error).message})`, 'chat');
  }
  const record = json as { schema?: unknown; type?: unknown } | null;
  const schema = record && typeof record === 'object' && 'schema' in record ? record.schema : json;
  if (typeof schema !== 'object' || schema === null || (schema as { type?: unknown }).type !== 'object') {
    throw new CliUsageError(`--json-schema: the schema's root "type" must be "object"`, 'chat');
  }
  try {
    return loadZod().z.fromJSONSchema(schema as Parameters<typeof import('zod').z.fromJSONSchema>[0]);
  } catch (cause) {
    throw new CliUsageError(`--json-schema: ${(cause as Error).message}`, 'chat');
  }
}
