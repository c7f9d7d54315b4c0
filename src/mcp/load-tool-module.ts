import { importUserModule } from '../core/import-user-module.js';
import { ToolDefinitionError } from '../tools/errors.js';
import type { Tool } from '../tools/tool.js';

/**
 * The function tools a user's module exports (`--tools ./module.ts`): its default export and every named
 * export that is a tool or an array of tools. A `.ts` module is loaded as `importUserModule` loads it (through tsx).
 */
export async function loadToolModule(specifier: string, cwd: string): Promise<Tool[]> {
  let module: Record<string, unknown>;
  try {
    module = await importUserModule(specifier, { cwd, feature: '--tools' });
  } catch (error) {
    const reason =
      error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    throw new ToolDefinitionError({
      toolName: specifier,
      rule: `--tools module could not be loaded (${reason})`,
      cause: error,
    });
  }
  const tools: Tool[] = [];
  for (const value of Object.values(module)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (isFunctionTool(item) && !tools.includes(item)) tools.push(item);
    }
  }
  if (tools.length === 0) {
    throw new ToolDefinitionError({
      toolName: specifier,
      rule: '--tools module exports no tools; export defineTool() tools (or an array of them)',
    });
  }
  return tools;
}

function isFunctionTool(value: unknown): value is Tool {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'function' &&
    typeof (value as { execute?: unknown }).execute === 'function'
  );
}
