import { fileURLToPath } from 'node:url';
import { loadOnce } from '../../../core/load-module.js';

// `npm run build` bundles the page script and defines this constant with it (scripts/bundle.mjs), so the
// published package never needs esbuild; run from source (tsx, tests) the page is bundled on first use.
declare const __SVC_CHAT_PAGE_JS__: string | undefined;

const bundled = loadOnce(bundlePageScript);
const loadEsbuild = loadOnce(() => import('esbuild'), {
  packageName: 'esbuild',
  feature: 'the chat page run from source',
});

/** The bundled script of the chat page. */
export function loadPageScript(): Promise<string> {
  if (typeof __SVC_CHAT_PAGE_JS__ === 'string') return Promise.resolve(__SVC_CHAT_PAGE_JS__);
  return bundled();
}

/** The esbuild options of the page bundle, shared with scripts/bundle.mjs. */
export const pageBuildOptions = {
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
} as const;

async function bundlePageScript(): Promise<string> {
  const { build } = await loadEsbuild();
  const result = await build({
    ...pageBuildOptions,
    entryPoints: [fileURLToPath(new URL('./page/app.ts', import.meta.url))],
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}
