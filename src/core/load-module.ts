import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MissingDependencyError } from './errors.js';

// The one way svc-agents loads a module on first need instead of at import: its own heavy modules (the
// request schemas, the run loop, the tokenizer), zod for its own schemas, and the optional peer
// dependencies (ioredis, pg, bullmq, @modelcontextprotocol/sdk, @opentelemetry/api). A missing optional
// package always ends the same way: a `MissingDependencyError` naming it and its install command.

const require = createRequire(import.meta.url);

/** An optional package and what needs it, for the {@link MissingDependencyError} when it is missing. */
export interface OptionalDependency {
  /** The package to install, e.g. `ioredis`. */
  packageName: string;
  /** What needs it, e.g. `redisStore`. */
  feature: string;
}

/** A module loaded on its first call; the promise is shared by every later call. */
export interface LazyModule<T> {
  (): Promise<T>;
  /** The module once it has loaded, for callers that stay synchronous after the first load. */
  readonly loaded: T | undefined;
}

/**
 * `load` called on first use only, its promise shared by every later call. With `dependency`, a package
 * that cannot be found rejects with {@link MissingDependencyError}; a failed load is tried again next time.
 */
export function loadOnce<T>(load: () => Promise<T>, dependency?: OptionalDependency): LazyModule<T> {
  let loading: Promise<T> | undefined;
  let loaded: T | undefined;
  const lazy = () => {
    loading ??= load().then(
      (module) => {
        loaded = module;
        return module;
      },
      (error: unknown) => {
        loading = undefined;
        throw missingOrSelf(error, dependency);
      },
    );
    return loading;
  };
  Object.defineProperty(lazy, 'loaded', { get: () => loaded });
  return lazy as LazyModule<T>;
}

/**
 * Imports the optional package `packageName` for `feature` (`load` is its `import()`), or rejects with
 * {@link MissingDependencyError} when it is not installed. Node caches the module: only the first call loads.
 */
export async function loadOptional<T>(
  packageName: string,
  load: () => Promise<T>,
  feature: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw missingOrSelf(error, { packageName, feature });
  }
}

/**
 * Loads a package synchronously, on first use instead of at import, for code paths that are synchronous
 * by contract (`defineTool`, `createMcpToolServer`). Where Node can `require()` ES modules (20.19+) it
 * loads the ESM build, so the module instance is the one a user's `import` gets (one zod, one registry
 * of descriptions); older Node falls back to the package's CommonJS build. With `dependency`, a package
 * that cannot be found throws {@link MissingDependencyError}.
 */
export function loadModuleSync<T>(specifier: string, dependency?: OptionalDependency): T {
  try {
    if ((process.features as { require_module?: boolean }).require_module) {
      return require(fileURLToPath(import.meta.resolve(specifier))) as T;
    }
    return require(specifier) as T;
  } catch (error) {
    throw missingOrSelf(error, dependency);
  }
}

/**
 * zod for svc-agents' own schemas (built-in tools' parameters, saved-state shapes), loaded on their first
 * use rather than when svc-agents is imported: zod is the largest part of a cold import.
 */
export function loadZod(): typeof import('zod') {
  return loadModuleSync<typeof import('zod')>('zod');
}

/** `error` as a {@link MissingDependencyError} when it says that `dependency`'s package cannot be found. */
function missingOrSelf(error: unknown, dependency: OptionalDependency | undefined): unknown {
  if (dependency === undefined || !isPackageNotFound(error, dependency.packageName)) return error;
  return new MissingDependencyError({ ...dependency, cause: error });
}

function isPackageNotFound(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    (message.includes(`'${packageName}'`) || message.includes(`'${packageName}/`))
  );
}
