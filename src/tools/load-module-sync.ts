import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * Loads a package synchronously, on first use instead of at import, for code paths that are synchronous
 * by contract (`defineTool`). Where Node can `require()` ES modules (20.19+, 22.12+) it loads the ESM
 * build, so the module instance is the one a user's `import` gets (one zod, one registry of
 * descriptions); older Node falls back to the package's CommonJS build.
 */
export function loadModuleSync<T>(specifier: string): T {
  if ((process.features as { require_module?: boolean }).require_module) {
    return require(fileURLToPath(import.meta.resolve(specifier))) as T;
  }
  return require(specifier) as T;
}

/**
 * zod for svc-agents' own schemas (built-in tools' parameters, saved-state shapes), loaded on their first
 * use rather than when svc-agents is imported: zod is the largest part of a cold import. Where Node can
 * `require()` ES modules this is the user's own zod instance (see {@link loadModuleSync}).
 */
export function loadZod(): typeof import('zod') {
  return loadModuleSync<typeof import('zod')>('zod');
}
