import { assertKnowledgeBaseNameFree } from '../../tools/built-in/find-knowledge-bases.js';
import type { CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { CliUsageError } from '../errors.js';

/** `svc-agents kb create <name> [--type text|image]`. */
export const kbCreateCommand: CommandSpec = {
  path: ['kb', 'create'],
  summary: 'create a knowledge base (vector store)',
  usage: 'kb create <name> [--type text|image] [--allow-duplicate]',
  positionals: { min: 1, max: 1 },
  options: {
    type: { type: 'string', valueName: 'text|image', description: 'what the store holds (default text)' },
    'allow-duplicate': {
      type: 'boolean',
      description:
        'create it even when a knowledge base of that name exists (its name then needs an id beside it)',
    },
  },
  details:
    'Names use English letters, digits and underscores and must not start with an underscore.\n' +
    'A name already taken fails, so that the name keeps meaning one knowledge base.',
  async run(ctx, args) {
    const type = (args.values.type as string | undefined) ?? 'text';
    if (type !== 'text' && type !== 'image') {
      throw new CliUsageError(`--type must be text or image, got "${type}"`, 'kb create');
    }
    const name = args.positionals[0] as string;
    const { client } = await connect(ctx);
    if (args.values['allow-duplicate'] !== true) await assertKnowledgeBaseNameFree(client, name);
    const store = await client.vectorStores.create({ name, type });
    if (ctx.json) ctx.printJson(store);
    else ctx.io.stdout.write(`created knowledge base ${store.name} (${store.id}, ${type})\n`);
    return 0;
  },
};
