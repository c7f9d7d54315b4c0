import { Agent } from '../../agent/agent.js';
import { hostedTools } from '../../tools/hosted-tools.js';
import { createEventRenderer } from '../chat/render-agent-events.js';
import type { CommandSpec } from '../command.js';
import { nullStream } from '../command.js';
import { connect } from '../connect.js';
import { createSpinner } from '../ui/spinner.js';
import { defaultChatModel, resolveStore } from './utils.js';

/** `svc-agents kb ask <store> "question"`: an agent with the service's hosted retrieval tool. */
export const kbAskCommand: CommandSpec = {
  path: ['kb', 'ask'],
  summary: 'answer a question from a knowledge base (hosted retrieval)',
  usage: 'kb ask <store> <question> [--model <id>]',
  positionals: { min: 2 },
  options: {
    model: {
      type: 'string',
      short: 'm',
      valueName: '<id>',
      description: `model id (default ${defaultChatModel})`,
    },
  },
  async run(ctx, args) {
    const [storeArg, ...words] = args.positionals as [string, ...string[]];
    const question = words.join(' ');
    const { client } = await connect(ctx);
    const store = await resolveStore(client, storeArg);
    const agent = new Agent({
      client,
      model: (args.values.model as string | undefined) ?? ctx.io.env.SVC_MODEL ?? defaultChatModel,
      instructions: 'Answer from the knowledge base and name the files you used.',
      tools: [
        hostedTools.retrieval({
          name: 'knowledge_base',
          description: `Search the knowledge base "${store.name}" for passages that answer the question.`,
          vectorStoreId: store.id,
        }),
      ],
    });
    const tty = Boolean(ctx.io.stdout.isTTY);
    const spinner = createSpinner(ctx.io.stderr);
    const renderer = createEventRenderer({
      answer: ctx.json ? nullStream : ctx.io.stdout,
      trace: ctx.json ? nullStream : tty ? ctx.io.stdout : ctx.io.stderr,
      style: tty ? ctx.style.out : ctx.style.err,
      spinner,
    });
    spinner.start('searching');
    const stream = agent.stream(question);
    for await (const event of stream) renderer.render(event);
    renderer.end();
    const result = await stream.result;
    if (ctx.json) {
      ctx.printJson({
        store: { id: store.id, name: store.name },
        question,
        text: result.text,
        hostedToolCalls: result.steps.flatMap((step) => step.hostedToolCalls),
        usage: result.usage,
      });
    }
    return 0;
  },
};
