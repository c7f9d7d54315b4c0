import type { Style } from './ui/ansi.js';

/** The streams and environment a command works with; tests and `main.ts` pass the real process ones. */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** One flag of a command. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Shown in `--help`, e.g. `<id>`. */
  valueName?: string;
  /** The flag may be given several times; its value is then a list. */
  multiple?: boolean;
  description: string;
}

/** Flags and positionals after parsing. */
export interface ParsedArgs {
  positionals: string[];
  values: Record<string, string | boolean | string[] | undefined>;
}

/** What every command receives besides its arguments. */
export interface CommandContext {
  io: CliIo;
  /** `--json` was given: print machine-readable output only. */
  json: boolean;
  /** `--fresh` was given: the embedded emulator starts empty. */
  fresh?: boolean;
  style: { out: Style; err: Style };
  /** Registers cleanup (closing clients, the embedded emulator) run when the command ends. */
  defer(fn: () => Promise<void> | void): void;
  /** Prints one JSON document on stdout. */
  printJson(value: unknown): void;
}

/** A command of the `svc-agents` CLI. */
export interface CommandSpec {
  /** Words that select it, e.g. `['kb', 'create']`. */
  path: string[];
  summary: string;
  /** Usage line after `svc-agents`, e.g. `kb create <name> [--type text|image]`. */
  usage: string;
  /** Minimum and maximum number of positionals (`max` undefined = unlimited). */
  positionals: { min: number; max?: number };
  options?: Record<string, OptionSpec>;
  /** Extra help text, e.g. examples. */
  details?: string;
  /** Gets its arguments unparsed (the emulator command parses its own). */
  rawArgs?: boolean;
  run(ctx: CommandContext, args: ParsedArgs): Promise<number | undefined>;
}

/** A writable that drops everything: where `--json` mode sends human-readable output. */
export const nullStream = { write: () => true } as unknown as NodeJS.WritableStream;
