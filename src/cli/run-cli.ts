import { parseArgs } from 'node:util';
import type { CliIo, CommandContext, CommandSpec, ParsedArgs } from './command.js';
import { commands } from './commands/registry.js';
import { CliUsageError } from './errors.js';
import { formatCliError } from './format-cli-error.js';
import { commandHelp, commonOptions, describeCommand, overviewHelp } from './help-text.js';
import { createStyle } from './ui/ansi.js';

function findCommand(argv: string[]): { spec: CommandSpec; rest: string[] } | undefined {
  let best: CommandSpec | undefined;
  for (const spec of commands) {
    const matches = spec.path.every((word, i) => argv[i] === word);
    if (matches && (!best || spec.path.length > best.path.length)) best = spec;
  }
  return best ? { spec: best, rest: argv.slice(best.path.length) } : undefined;
}

function parse(spec: CommandSpec, rest: string[]): ParsedArgs {
  const name = spec.path.join(' ');
  const options = Object.fromEntries(
    Object.entries({ ...spec.options, ...commonOptions }).map(([key, o]) => [
      key,
      {
        type: o.type,
        ...(o.short ? { short: o.short } : {}),
        ...(o.multiple ? { multiple: true } : {}),
      },
    ]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (error) {
    // node:util messages are long and mention internals; keep the first sentence.
    const message =
      (error as Error).message.split('. ')[0]?.replace(/^Unknown option/, 'unknown option') ?? '';
    throw new CliUsageError(message, name);
  }
  const args: ParsedArgs = {
    positionals: parsed.positionals,
    values: parsed.values as ParsedArgs['values'],
  };
  if (args.values.help) return args;
  const { min, max } = spec.positionals;
  if (args.positionals.length < min) {
    throw new CliUsageError(`missing argument; usage: svc-agents ${spec.usage}`, name);
  }
  if (max !== undefined && args.positionals.length > max) {
    throw new CliUsageError(`unexpected argument "${args.positionals[max]}"`, name);
  }
  return args;
}

/** Runs the CLI for `argv` (without `node` and the script) and resolves with the exit code; never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const cleanups: Array<() => Promise<void> | void> = [];
  const json = argv.includes('--json');
  const ctx: CommandContext = {
    io,
    json,
    fresh: argv.includes('--fresh'),
    style: { out: createStyle(io.stdout, io.env), err: createStyle(io.stderr, io.env) },
    defer: (fn) => cleanups.push(fn),
    printJson: (value) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  };
  try {
    const first = argv[0];
    if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
      if (json) ctx.printJson({ commands: commands.map(describeCommand) });
      else io.stdout.write(overviewHelp(commands));
      return 0;
    }
    if (first === '--version' || first === '-v') {
      io.stdout.write(`${await readVersion()}\n`);
      return 0;
    }
    const found = findCommand(argv);
    if (!found) {
      const group = commands.some((c) => c.path[0] === first && c.path.length > 1);
      if (group) {
        const wantsHelp = argv.slice(1).some((a) => a === '--help' || a === '-h') || argv.length === 1;
        if (wantsHelp) {
          io.stdout.write(overviewHelp(commands, first));
          return argv.length === 1 ? 2 : 0;
        }
        throw new CliUsageError(`unknown command "${argv.slice(0, 2).join(' ')}"`, first);
      }
      throw new CliUsageError(`unknown command "${first}"`);
    }
    const { spec, rest } = found;
    if (spec.rawArgs) return (await spec.run(ctx, { positionals: rest, values: {} })) ?? 0;
    const args = parse(spec, rest);
    if (args.values.help) {
      if (json) ctx.printJson(describeCommand(spec));
      else io.stdout.write(commandHelp(spec));
      return 0;
    }
    return (await spec.run(ctx, args)) ?? 0;
  } catch (error) {
    const formatted = formatCliError(error, io.env);
    io.stderr.write(json ? `${JSON.stringify(formatted.json)}\n` : `${formatted.line}\n`);
    return formatted.exitCode;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch {
        // Cleanup failures must not hide the command's own result.
      }
    }
  }
}

async function readVersion(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  // Walk up: this code runs from src/cli under tsx and from a bundled file in dist, at different depths.
  for (let url = new URL('./package.json', import.meta.url); ; url = new URL('../package.json', url)) {
    try {
      const pkg = JSON.parse(await readFile(url, 'utf8')) as { name?: string; version: string };
      if (pkg.name === 'svc-agents') return pkg.version;
    } catch {
      // No package.json at this level: keep climbing.
    }
    if (new URL('../package.json', url).href === url.href) return 'unknown';
  }
}
