import { loadModuleSync } from './load-module-sync.js';

/**
 * zod for svc-agents' own schemas (built-in tools' parameters, saved-state shapes), loaded on their first
 * use rather than when svc-agents is imported: zod is the largest part of a cold import. Where Node can
 * `require()` ES modules this is the user's own zod instance (see {@link loadModuleSync}).
 */
export function loadZod(): typeof import('zod') {
  return loadModuleSync<typeof import('zod')>('zod');
}
