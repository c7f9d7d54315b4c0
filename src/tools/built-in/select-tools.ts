import { ToolDefinitionError } from '../errors.js';
import type { Tool } from '../tool.js';

/** `only` / `exclude` options shared by the built-in tool families. */
export interface ToolSelection<Name extends string> {
  /** Keep only these tools. */
  only?: readonly Name[] | undefined;
  /** Leave these tools out. */
  exclude?: readonly Name[] | undefined;
}

/**
 * Builds the selected tools of a family, in the family's order. Unknown names in `only`/`exclude` are a
 * `ToolDefinitionError`, so a typo never silently hands the model a destructive tool.
 */
export function selectTools<Name extends string>(
  family: string,
  factories: Record<Name, () => Tool>,
  selection: ToolSelection<Name>,
): Tool[] {
  const names = Object.keys(factories) as Name[];
  for (const [option, list] of [
    ['only', selection.only],
    ['exclude', selection.exclude],
  ] as const) {
    for (const name of list ?? []) {
      if (!names.includes(name)) {
        throw new ToolDefinitionError({
          toolName: String(name),
          rule: `not a ${family} tool (options.${option}); known: ${names.join(', ')}`,
        });
      }
    }
  }
  return names
    .filter((name) => (selection.only ? selection.only.includes(name) : true))
    .filter((name) => !selection.exclude?.includes(name))
    .map((name) => factories[name]());
}
