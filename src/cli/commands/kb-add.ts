import { basename, extname } from 'node:path';
import type { CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { createProgressBar } from '../ui/progress-bar.js';
import { resolveInputFile, resolveStore } from './utils.js';

const imageExtensions = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif']);

/** `svc-agents kb add <store> <files...>`: upload, wait until each file is parsed, add them to the store. */
export const kbAddCommand: CommandSpec = {
  path: ['kb', 'add'],
  summary: 'upload files, wait until they are ready, and add them to a knowledge base',
  usage: 'kb add <store> <files...> [--description <text>]',
  positionals: { min: 2 },
  options: {
    description: {
      type: 'string',
      valueName: '<text>',
      description: 'description of each file (image stores need one; default: the file name)',
    },
  },
  details: '<store> is the id or the name of the knowledge base.',
  async run(ctx, args) {
    const [storeArg, ...paths] = args.positionals as [string, ...string[]];
    const files = await Promise.all(paths.map((path) => resolveInputFile(ctx.io.cwd, path)));
    const { client } = await connect(ctx);
    const store = await resolveStore(client, storeArg);
    const imageStore = store.type === 'image';
    // Check every file before uploading any, so a bad one in the list leaves nothing half done.
    const wrongType = paths.find((path) => imageStore && !imageExtensions.has(extname(path).toLowerCase()));
    if (wrongType)
      throw new Error(`${basename(wrongType)}: an image knowledge base takes png, jpg, webp or gif files`);
    const bar = createProgressBar(ctx.io.stderr, paths.length * 2, 'uploading');
    let done = 0;

    const uploaded = [];
    for (const [i, path] of paths.entries()) {
      const name = basename(path);
      bar.update(done, `uploading ${name}`);
      const file = await client.files.upload({
        file: files[i] as string,
        purpose: imageStore ? 'retrieval-image' : 'retrieval-text',
      });
      bar.update(++done, `uploaded ${name}`);
      uploaded.push({ path, name, file });
    }
    // The service parses files in the background ("processed"); they can be added once "success".
    const ready = await Promise.all(
      uploaded.map(async (entry) => {
        const file = await client.files.waitUntilReady(entry.file.id, { timeout: 120_000 });
        bar.update(++done, `${entry.name} ready`);
        return { ...entry, file };
      }),
    );
    const description = args.values.description as string | undefined;
    await client.vectorStores.files.create(store.id, {
      files: ready.map(({ file, name }) => {
        const text = description ?? (imageStore ? name : undefined);
        return text === undefined ? { file_id: file.id } : { file_id: file.id, description: text };
      }),
    });
    bar.finish(`added to ${store.name}`);
    if (ctx.json) {
      ctx.printJson({
        store: { id: store.id, name: store.name },
        files: ready.map(({ path, file }) => ({ path, id: file.id, bytes: file.bytes, status: file.status })),
      });
    } else {
      for (const { name, file } of ready)
        ctx.io.stdout.write(`added ${name} (${file.id}, ${file.bytes} bytes)\n`);
      ctx.io.stdout.write(`${ready.length} file(s) added to ${store.name} (${store.id})\n`);
    }
    return 0;
  },
};
