import type { RunSummary } from './api-types.js';
import { api, el, formatDuration, formatTime, formatUsd } from './dom.js';

/** A session's runs in order, with their tokens, costs and the total. */
export function showSession(main: HTMLElement, sessionId: string): () => void {
  main.replaceChildren(el('h2', {}, `Session ${sessionId}`), el('p', { className: 'muted' }, 'Loading…'));
  api<{ runs: RunSummary[]; totals: { runs: number; tokens: number; costUsd?: number } }>(
    `sessions/${encodeURIComponent(sessionId)}`,
  )
    .then(({ runs, totals }) => {
      const rows = runs.map((run, index) =>
        el(
          'tr',
          { 'data-run': run.id },
          el('td', { className: 'num' }, String(index + 1)),
          el('td', {}, el('a', { href: `#/runs/${encodeURIComponent(run.id)}` }, run.title ?? run.id)),
          el('td', {}, el('span', { className: `status ${run.status}` }, run.status)),
          el('td', { className: 'num' }, formatTime(run.createdAt)),
          el('td', { className: 'num' }, formatDuration(run.durationMs)),
          el('td', { className: 'num' }, String(run.tokens.total)),
          el('td', { className: 'num' }, formatUsd(run.costUsd)),
        ),
      );
      main.replaceChildren(
        el('h2', {}, `Session ${sessionId}`),
        el('p', {}, `${totals.runs} runs · ${totals.tokens} tokens · ${formatUsd(totals.costUsd)}`),
        el(
          'table',
          { 'aria-label': 'Runs of the session' },
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              ...['#', 'Run', 'Status', 'Started', 'Duration', 'Tokens', 'Cost'].map((h) => el('th', {}, h)),
            ),
          ),
          el('tbody', {}, ...rows),
        ),
      );
    })
    .catch((error: Error) =>
      main.replaceChildren(el('h2', {}, 'Session'), el('p', { className: 'bad' }, error.message)),
    );
  return () => undefined;
}
