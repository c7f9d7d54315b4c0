import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FileObject, FilePurpose } from '../../api/types/files.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { connect } from '../connect.js';
import { CliUsageError } from '../errors.js';
import { textTable } from '../ui/text-table.js';
import { resolveInputFile } from './utils.js';

const purposes: readonly FilePurpose[] = ['file-extract', 'retrieval-text', 'retrieval-image', 'storage'];

function printFile(ctx: CommandContext, file: FileObject): void {
  if (ctx.json) ctx.printJson(file);
  else
    ctx.io.stdout.write(
      `${file.id}  ${file.filename}  ${file.purpose}  ${file.bytes} bytes  ${file.status ?? ''}\n`,
    );
}

/** `svc-agents files ls [--purpose P]`: the uploaded files. */
export const filesLsCommand: CommandSpec = {
  path: ['files', 'ls'],
  summary: 'list uploaded files',
  usage: 'files ls [--purpose <purpose>]',
  positionals: { min: 0, max: 0 },
  options: {
    purpose: {
      type: 'string',
      valueName: '<purpose>',
      description: `only files of one purpose: ${purposes.join(', ')}`,
    },
  },
  async run(ctx, args) {
    const purpose = args.values.purpose as string | undefined;
    const { client } = await connect(ctx);
    const files = [];
    for await (const file of client.files.list(purpose === undefined ? {} : { purpose })) files.push(file);
    if (ctx.json) ctx.printJson(files);
    else if (files.length === 0)
      ctx.io.stdout.write('no files yet; upload one: svc-agents files upload <file>\n');
    else {
      const rows = files.map((f) => [f.id, f.filename, f.purpose, String(f.bytes), String(f.status ?? '')]);
      ctx.io.stdout.write(`${textTable([['ID', 'FILENAME', 'PURPOSE', 'BYTES', 'STATUS'], ...rows])}\n`);
    }
    return 0;
  },
};

/** `svc-agents files upload <file> [--purpose P] [--wait]`. */
export const filesUploadCommand: CommandSpec = {
  path: ['files', 'upload'],
  summary: 'upload a file (default purpose file-extract), optionally waiting until it is ready',
  usage: 'files upload <file> [--purpose <purpose>] [--wait]',
  positionals: { min: 1, max: 1 },
  options: {
    purpose: {
      type: 'string',
      valueName: '<purpose>',
      description: `${purposes.join(', ')} (default file-extract)`,
    },
    wait: { type: 'boolean', description: 'wait until the service has parsed the file (status success)' },
  },
  async run(ctx, args) {
    const purpose = (args.values.purpose as string | undefined) ?? 'file-extract';
    if (!(purposes as readonly string[]).includes(purpose)) {
      throw new CliUsageError(
        `--purpose must be one of ${purposes.join(', ')}, got "${purpose}"`,
        'files upload',
      );
    }
    const path = await resolveInputFile(ctx.io.cwd, args.positionals[0] as string);
    const { client } = await connect(ctx);
    let file = await client.files.upload({ file: path, purpose: purpose as FilePurpose });
    if (args.values.wait === true) file = await client.files.waitUntilReady(file.id, { timeout: 120_000 });
    printFile(ctx, file);
    return 0;
  },
};

/** `svc-agents files get <id>`: one file and its status. */
export const filesGetCommand: CommandSpec = {
  path: ['files', 'get'],
  summary: 'show one file and its status',
  usage: 'files get <id>',
  positionals: { min: 1, max: 1 },
  async run(ctx, args) {
    const { client } = await connect(ctx);
    printFile(ctx, await client.files.retrieve(args.positionals[0] as string));
    return 0;
  },
};

/** `svc-agents files rm <id...>`: deletes files. */
export const filesRmCommand: CommandSpec = {
  path: ['files', 'rm'],
  summary: 'delete files',
  usage: 'files rm <id...>',
  positionals: { min: 1 },
  async run(ctx, args) {
    const { client } = await connect(ctx);
    const deleted = [];
    for (const id of args.positionals) deleted.push(await client.files.delete(id));
    if (ctx.json) ctx.printJson(deleted);
    else for (const entry of deleted) ctx.io.stdout.write(`deleted ${entry.id}\n`);
    return 0;
  },
};

/** `svc-agents files content <id> [-o file]`: the extracted text of a `file-extract` file. */
export const filesContentCommand: CommandSpec = {
  path: ['files', 'content'],
  summary: 'print the extracted text of a file-extract file',
  usage: 'files content <id> [-o <file>]',
  positionals: { min: 1, max: 1 },
  options: {
    output: {
      type: 'string',
      short: 'o',
      valueName: '<file>',
      description: 'write the text to a file instead',
    },
  },
  async run(ctx, args) {
    const id = args.positionals[0] as string;
    const { client } = await connect(ctx);
    const text = await client.files.content(id);
    const output = args.values.output as string | undefined;
    if (output !== undefined) {
      const target = resolve(ctx.io.cwd, output);
      await writeFile(target, text);
      if (ctx.json) ctx.printJson({ id, file: target, characters: text.length });
      else ctx.io.stdout.write(`wrote ${target} (${text.length} characters)\n`);
    } else if (ctx.json) ctx.printJson({ id, content: text });
    else ctx.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    return 0;
  },
};
