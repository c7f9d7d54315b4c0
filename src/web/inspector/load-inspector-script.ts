import { pageScriptLoader } from '../page-bundle.js';

// `npm run build` defines this constant with the bundled inspector script (scripts/bundle.mjs).
declare const __SVC_INSPECTOR_PAGE_JS__: string | undefined;

/** The bundled script of the inspector page. */
export const loadInspectorScript = pageScriptLoader(
  typeof __SVC_INSPECTOR_PAGE_JS__ === 'string' ? __SVC_INSPECTOR_PAGE_JS__ : undefined,
  new URL('./page/inspector-app.ts', import.meta.url),
  'the inspector page run from source',
);
