import { text } from 'node:stream/consumers';
import type { CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { CliUsageError } from '../errors.js';
import { defaultChatModel } from './utils.js';

/** `svc-agents tokens "text" --model ...`: input tokens of a user message. */
export const tokensCommand: CommandSpec = {
  path: ['tokens'],
  summary: 'count the input tokens of a text (as a user message)',
  usage: 'tokens <text|-> [--model <id>] [--format chat|messages]',
  positionals: { min: 1 },
  options: {
    model: {
      type: 'string',
      short: 'm',
      valueName: '<id>',
      description: `model id (default ${defaultChatModel})`,
    },
    format: {
      type: 'string',
      valueName: '<format>',
      description:
        'chat (POST /v1/token/count, the default) or messages (POST /v1/messages/count_tokens, Messages format)',
    },
  },
  details: 'Pass - to read the text from stdin.',
  async run(ctx, args) {
    const input =
      args.positionals.length === 1 && args.positionals[0] === '-'
        ? await text(ctx.io.stdin)
        : args.positionals.join(' ');
    const model = (args.values.model as string | undefined) ?? ctx.io.env.SVC_MODEL ?? defaultChatModel;
    const format = (args.values.format as string | undefined) ?? 'chat';
    if (format !== 'chat' && format !== 'messages') {
      throw new CliUsageError(`--format must be chat or messages, got "${format}"`, 'tokens');
    }
    const { client } = await connect(ctx);
    const total =
      format === 'messages'
        ? (await client.messages.countTokens({ model, messages: [{ role: 'user', content: input }] }))
            .input_tokens
        : (await client.tokens.count({ model, messages: [{ role: 'user', content: input }] })).data
            .total_tokens;
    if (ctx.json) ctx.printJson({ model, format, totalTokens: total });
    else ctx.io.stdout.write(`${total}\n`);
    return 0;
  },
};
