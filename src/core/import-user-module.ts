import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ModuleLoadError } from './errors.js';
import { loadOptional } from './load-module.js';

// The one way svc-agents imports a module the user names (an agent of `serve --agent`, the agents of
// `worker --agents`, the tools of `mcp serve --tools`, an agent factory): Node imports it; a TypeScript file
// Node cannot load itself (ERR_UNKNOWN_FILE_EXTENSION) goes through tsx, an optional dependency. So a `.ts`
// module works the same in every command, whether or not the process was started with a TypeScript loader.

/** Options of {@link importUserModule}. */
export interface ImportUserModuleOptions {
  /** The folder a relative path is read from. @default process.cwd() */
  cwd?: string;
  /** What asked for it, e.g. `worker --agents`: named in errors. */
  feature: string;
}

/** Imports the user's module at `specifier` (a path); rejects with a `ModuleLoadError` naming it. */
export async function importUserModule(
  specifier: string,
  { cwd = process.cwd(), feature }: ImportUserModuleOptions,
): Promise<Record<string, unknown>> {
  const url = pathToFileURL(resolve(cwd, specifier)).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw new ModuleLoadError({ specifier, feature, cause: error });
    }
  }
  const { tsImport } = await loadOptional(
    'tsx',
    () => import('tsx/esm/api') as Promise<{ tsImport: (url: string, parent: string) => Promise<unknown> }>,
    `${feature} ${specifier} (a TypeScript file)`,
  );
  try {
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  } catch (error) {
    throw new ModuleLoadError({ specifier, feature, cause: error });
  }
}
