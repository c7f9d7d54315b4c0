import { pageScriptLoader } from '../../../web/page-bundle.js';

// `npm run build` defines this constant with the bundled chat page script (scripts/bundle.mjs).
declare const __SVC_CHAT_PAGE_JS__: string | undefined;

/** The bundled script of the chat page. */
export const loadPageScript = pageScriptLoader(
  typeof __SVC_CHAT_PAGE_JS__ === 'string' ? __SVC_CHAT_PAGE_JS__ : undefined,
  new URL('./page/app.ts', import.meta.url),
  'the chat page run from source',
);
