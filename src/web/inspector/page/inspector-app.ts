// The run inspector page (`createInspectorHandler`, `svc-agents inspect`): plain DOM, bundled by esbuild.
// Views by address: `#/` (runs list, its query after `?`), `#/runs/<id>`, `#/sessions/<id>`.
import { showRun } from './run-view.js';
import { showRunsList } from './runs-list-view.js';
import { showSession } from './session-view.js';

const main = document.getElementById('main') as HTMLElement;
let leave: () => void = () => undefined;

function route(): void {
  leave();
  const hash = location.hash.replace(/^#/, '') || '/';
  const run = /^\/runs\/([^/?]+)/.exec(hash);
  const session = /^\/sessions\/([^/?]+)/.exec(hash);
  if (run) leave = showRun(main, decodeURIComponent(run[1]!));
  else if (session) leave = showSession(main, decodeURIComponent(session[1]!));
  else leave = showRunsList(main, new URLSearchParams(hash.split('?')[1] ?? ''));
  document.title = run ? `Run ${decodeURIComponent(run[1]!)} · svc-agents inspector` : 'svc-agents inspector';
}

window.addEventListener('hashchange', () => {
  route();
  // Keyboard users land on the new view.
  main.focus();
});
route();
