import { fileURLToPath } from 'node:url';
import { loadOnce } from '../core/load-module.js';

/** The esbuild options of the browser pages (the chat page, the inspector), shared with scripts/bundle.mjs. */
export const pageBuildOptions = {
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
} as const;

/**
 * The script of a browser page: `built` when `npm run build` defined it into the bundle (so the published
 * package never needs esbuild), otherwise `entry` bundled on first use (run from source: tsx, tests).
 */
export function pageScriptLoader(
  built: string | undefined,
  entry: URL,
  feature: string,
): () => Promise<string> {
  if (typeof built === 'string') return () => Promise.resolve(built);
  const loadEsbuild = loadOnce(() => import('esbuild'), { packageName: 'esbuild', feature });
  return loadOnce(async () => {
    const { build } = await loadEsbuild();
    const result = await build({
      ...pageBuildOptions,
      entryPoints: [fileURLToPath(entry)],
      logLevel: 'silent',
    });
    return result.outputFiles[0]?.text ?? '';
  });
}
