import type { CommandSpec, OptionSpec } from './command.js';

/** Options every command accepts. */
export const commonOptions: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'print machine-readable JSON' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
  fresh: {
    type: 'boolean',
    description: 'start the embedded emulator empty (forget its files and knowledge bases)',
  },
};

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.valueName ? ` ${spec.valueName}` : ''}`;
    return [flag, spec.multiple ? `${spec.description} (repeatable)` : spec.description] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`);
}

/** `svc-agents <command> --help`. */
export function commandHelp(spec: CommandSpec): string {
  const lines = [`Usage: svc-agents ${spec.usage}`, '', spec.summary, ''];
  lines.push('Options:', ...optionLines({ ...spec.options, ...commonOptions }));
  if (spec.details) lines.push('', spec.details.trimEnd());
  return `${lines.join('\n')}\n`;
}

/** `svc-agents --help`, or the help of a command group such as `kb`. */
export function overviewHelp(commands: CommandSpec[], group?: string): string {
  const shown = group ? commands.filter((c) => c.path[0] === group) : commands;
  const width = Math.max(...shown.map((c) => c.path.join(' ').length));
  const lines = [
    `Usage: svc-agents ${group ? `${group} ` : ''}<command> [options]`,
    '',
    'Agents, knowledge bases, images and voices on the svc Inference and Knowledge Service.',
    'Without SVC_API_KEY and SVC_BASE_URL every command runs against the embedded emulator.',
    '',
    'Commands:',
    ...shown.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`),
    '',
    'Every command takes --help and --json.',
  ];
  return `${lines.join('\n')}\n`;
}

/** A command's help as data, for `--help --json`. */
export function describeCommand(spec: CommandSpec) {
  return {
    command: spec.path.join(' '),
    summary: spec.summary,
    usage: `svc-agents ${spec.usage}`,
    options: Object.entries({ ...spec.options, ...commonOptions }).map(([name, option]) => ({
      name: `--${name}`,
      ...(option.short ? { short: `-${option.short}` } : {}),
      takesValue: option.type === 'string',
      description: option.description,
    })),
  };
}
