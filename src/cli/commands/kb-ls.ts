import type { CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { textTable } from '../ui/text-table.js';
import { resolveStore } from './utils.js';

/** `svc-agents kb ls [store]`: the knowledge bases, or the files of one. */
export const kbLsCommand: CommandSpec = {
  path: ['kb', 'ls'],
  summary: 'list knowledge bases, or the files of one',
  usage: 'kb ls [store]',
  positionals: { min: 0, max: 1 },
  async run(ctx, args) {
    const { client } = await connect(ctx);
    const storeArg = args.positionals[0];
    if (storeArg === undefined) {
      const stores = [];
      for await (const store of client.vectorStores.list({ limit: 100 })) stores.push(store);
      if (ctx.json) ctx.printJson(stores);
      else if (stores.length === 0)
        ctx.io.stdout.write('no knowledge bases yet; create one: svc-agents kb create <name>\n');
      else {
        const rows = stores.map((s) => [s.id, s.name, s.type ?? '', String(s.file_counts?.total ?? '')]);
        ctx.io.stdout.write(`${textTable([['ID', 'NAME', 'TYPE', 'FILES'], ...rows])}\n`);
      }
      return 0;
    }
    const store = await resolveStore(client, storeArg);
    const files = [];
    for await (const file of client.vectorStores.files.list(store.id, { limit: 100 })) files.push(file);
    if (ctx.json) ctx.printJson({ store, files });
    else if (files.length === 0)
      ctx.io.stdout.write(
        `${store.name} has no files; add some: svc-agents kb add ${store.name} <files...>\n`,
      );
    else {
      const rows = files.map((f) => [
        f.id,
        String(f.metadata?.file_name ?? ''),
        String(f.metadata?.description ?? ''),
        new Date(f.created_at * 1000).toISOString(),
      ]);
      ctx.io.stdout.write(`${textTable([['ID', 'FILE', 'DESCRIPTION', 'ADDED'], ...rows])}\n`);
    }
    return 0;
  },
};
