import type { CommandSpec } from '../command.js';
import { connect } from '../connect.js';

/** `svc-agents voice ls`: the cloned voices of this account. */
export const voiceLsCommand: CommandSpec = {
  path: ['voice', 'ls'],
  summary: 'list your cloned voices',
  usage: 'voice ls',
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const { client } = await connect(ctx);
    const voices = [];
    for await (const voice of client.audio.voices.list({ limit: 100 })) voices.push(voice);
    if (ctx.json) ctx.printJson(voices);
    else if (voices.length === 0)
      ctx.io.stdout.write('no cloned voices yet; clone one: svc-agents voice clone <sample.wav>\n');
    else {
      for (const voice of voices) {
        ctx.io.stdout.write(
          `${voice.id}  file ${voice.file_id}  ${new Date(voice.created_at * 1000).toISOString()}\n`,
        );
      }
    }
    return 0;
  },
};
