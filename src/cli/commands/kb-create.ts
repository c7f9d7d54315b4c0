import { CliUsageError } from '../cli-usage-error.js';
import type { CommandSpec } from '../command.js';
import { connect } from '../connect.js';

/** `svc-agents kb create <name> [--type text|image]`. */
export const kbCreateCommand: CommandSpec = {
  path: ['kb', 'create'],
  summary: 'create a knowledge base (vector store)',
  usage: 'kb create <name> [--type text|image]',
  positionals: { min: 1, max: 1 },
  options: {
    type: { type: 'string', valueName: 'text|image', description: 'what the store holds (default text)' },
  },
  details: 'Names use English letters, digits and underscores and must not start with an underscore.',
  async run(ctx, args) {
    const type = (args.values.type as string | undefined) ?? 'text';
    if (type !== 'text' && type !== 'image') {
      throw new CliUsageError(`--type must be text or image, got "${type}"`, 'kb create');
    }
    const { client } = await connect(ctx);
    const store = await client.vectorStores.create({ name: args.positionals[0] as string, type });
    if (ctx.json) ctx.printJson(store);
    else ctx.io.stdout.write(`created knowledge base ${store.name} (${store.id}, ${type})\n`);
    return 0;
  },
};
