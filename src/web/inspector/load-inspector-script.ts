import { fileURLToPath } from 'node:url';
import { loadOnce } from '../../transport/load-module.js';
import { pageBuildOptions } from '../serve/load-page-script.js';

// As the chat page's script (src/web/serve/load-page-script.ts): `npm run build` defines this constant
// with the bundled inspector script (scripts/bundle.mjs); run from source it is bundled on first use.
declare const __SVC_INSPECTOR_PAGE_JS__: string | undefined;

const loadEsbuild = loadOnce(() => import('esbuild'), {
  packageName: 'esbuild',
  feature: 'the inspector page run from source',
});

const bundled = loadOnce(async () => {
  const { build } = await loadEsbuild();
  const result = await build({
    ...pageBuildOptions,
    entryPoints: [fileURLToPath(new URL('./page/inspector-app.ts', import.meta.url))],
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
});

/** The bundled script of the inspector page. */
export function loadInspectorScript(): Promise<string> {
  if (typeof __SVC_INSPECTOR_PAGE_JS__ === 'string') return Promise.resolve(__SVC_INSPECTOR_PAGE_JS__);
  return bundled();
}
