import type { CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { textTable } from '../ui/text-table.js';

/** `svc-agents models ls`: the models the service lists. */
export const modelsLsCommand: CommandSpec = {
  path: ['models', 'ls'],
  summary: 'list the models of the service',
  usage: 'models ls',
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const { client } = await connect(ctx);
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    if (ctx.json) ctx.printJson(models);
    else {
      const rows = models.map((m) => [
        m.id,
        m.owned_by,
        new Date(m.created * 1000).toISOString().slice(0, 10),
      ]);
      ctx.io.stdout.write(`${textTable([['ID', 'OWNED BY', 'CREATED'], ...rows])}\n`);
    }
    return 0;
  },
};

/** `svc-agents models get <id>`: one model. */
export const modelsGetCommand: CommandSpec = {
  path: ['models', 'get'],
  summary: 'show one model',
  usage: 'models get <id>',
  positionals: { min: 1, max: 1 },
  async run(ctx, args) {
    const { client } = await connect(ctx);
    const model = await client.models.retrieve(args.positionals[0] as string);
    if (ctx.json) ctx.printJson(model);
    else {
      const created = new Date(model.created * 1000).toISOString();
      ctx.io.stdout.write(`${model.id}\n  owned by  ${model.owned_by}\n  created   ${created}\n`);
    }
    return 0;
  },
};
