import type { RunQueryPage, RunSummary } from './api-types.js';
import { api, el, formatDuration, formatTime, formatUsd } from './dom.js';

// The runs list: status tabs with live counts, filters, sortable columns, search in messages, paging by
// cursor. Its query lives in the address (`#/?status=failed&sort=costUsd`), so a view can be linked.

const STATUSES = ['running', 'interrupted', 'completed', 'failed'] as const;
const SORTS: Array<[key: string, label: string]> = [
  ['createdAt', 'Started'],
  ['durationMs', 'Duration'],
  ['tokens', 'Tokens'],
  ['costUsd', 'Cost'],
];
const FILTERS: Array<[param: string, label: string, type: string]> = [
  ['q', 'Search messages', 'search'],
  ['agent', 'Agent', 'text'],
  ['session', 'Session', 'text'],
  ['tenant', 'Tenant', 'text'],
  ['model', 'Model', 'text'],
  ['from', 'From', 'datetime-local'],
  ['to', 'To', 'datetime-local'],
];

/** Renders the list for `params` into `main`; answers a function that stops its live refresh. */
export function showRunsList(main: HTMLElement, params: URLSearchParams): () => void {
  // Pages visited so far (their cursors), so Previous goes back without a cursor of its own.
  const cursors: Array<string | undefined> = [undefined];
  let page = 0;
  const navigate = (next: URLSearchParams) => {
    location.hash = `#/?${next.toString()}`;
  };
  const tabs = el('div', { className: 'tabs', role: 'group', 'aria-label': 'Status' });
  const form = el('form', { className: 'filters', role: 'search' });
  for (const [param, label, type] of FILTERS) {
    const value = params.get(param) ?? '';
    const shown = type === 'datetime-local' && value ? toLocalInput(Number(value)) : value;
    form.append(el('label', {}, label, el('input', { name: param, type, value: shown })));
  }
  form.append(el('button', { type: 'submit', className: 'primary' }, 'Apply'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const key of ['status', 'sort', 'order']) {
      const value = params.get(key);
      if (value) next.set(key, value);
    }
    for (const [param, , type] of FILTERS) {
      const value = (form.elements.namedItem(param) as HTMLInputElement).value.trim();
      if (value) next.set(param, type === 'datetime-local' ? String(new Date(value).getTime()) : value);
    }
    navigate(next);
  });
  const table = el('table', { 'aria-label': 'Runs' });
  const status = el('p', { className: 'muted', role: 'status' });
  const previous = el('button', { type: 'button' }, 'Previous');
  const next = el('button', { type: 'button' }, 'Next');
  const pageLabel = el('span', { className: 'muted' });
  main.replaceChildren(
    el('h2', {}, 'Runs'),
    tabs,
    form,
    table,
    el('div', { className: 'pager' }, previous, pageLabel, next),
    status,
  );

  let current: RunQueryPage | undefined;
  async function load(): Promise<void> {
    const query = new URLSearchParams(params);
    const cursor = cursors[page];
    if (cursor) query.set('cursor', cursor);
    try {
      current = await api<RunQueryPage>(`runs?${query.toString()}`);
    } catch (error) {
      status.textContent = `Could not list runs: ${(error as Error).message}`;
      status.className = 'bad';
      return;
    }
    status.textContent = '';
    renderTabs(current.counts);
    renderTable(current.runs);
    previous.disabled = page === 0;
    next.disabled = current.nextCursor === undefined;
    pageLabel.textContent = `page ${page + 1}`;
  }
  previous.addEventListener('click', () => {
    page = Math.max(0, page - 1);
    void load();
  });
  next.addEventListener('click', () => {
    if (!current?.nextCursor) return;
    cursors[page + 1] = current.nextCursor;
    page += 1;
    void load();
  });

  function renderTabs(counts: RunQueryPage['counts']): void {
    const selected = params.get('status') ?? '';
    const total = STATUSES.reduce((sum, key) => sum + counts[key], 0);
    const tab = (value: string, label: string) =>
      el(
        'button',
        {
          type: 'button',
          'aria-pressed': String(selected === value),
          'data-status': value || 'all',
          onclick: () => {
            const nextParams = new URLSearchParams(params);
            if (value) nextParams.set('status', value);
            else nextParams.delete('status');
            navigate(nextParams);
          },
        },
        label,
      );
    tabs.replaceChildren(
      tab('', `All (${total})`),
      ...STATUSES.map((key) => tab(key, `${key[0]!.toUpperCase()}${key.slice(1)} (${counts[key]})`)),
    );
  }

  function renderTable(runs: RunSummary[]): void {
    const sort = params.get('sort') ?? 'createdAt';
    const order = params.get('order') ?? 'desc';
    const header = (key: string, label: string) => {
      const active = sort === key;
      return el(
        'th',
        {
          className: 'num',
          'aria-sort': active ? (order === 'asc' ? 'ascending' : 'descending') : undefined,
        },
        el(
          'button',
          {
            type: 'button',
            'data-sort': key,
            onclick: () => {
              const nextParams = new URLSearchParams(params);
              nextParams.set('sort', key);
              nextParams.set('order', active && order === 'desc' ? 'asc' : 'desc');
              navigate(nextParams);
            },
          },
          `${label}${active ? (order === 'asc' ? ' ▲' : ' ▼') : ''}`,
        ),
      );
    };
    const head = el(
      'tr',
      {},
      el('th', {}, 'Run'),
      el('th', {}, 'Status'),
      el('th', {}, 'Agent'),
      el('th', {}, 'Session'),
      el('th', {}, 'Model'),
      ...SORTS.map(([key, label]) => header(key, label)),
    );
    const rows = runs.map((run) =>
      el(
        'tr',
        { 'data-run': run.id },
        el(
          'td',
          {},
          el('a', { href: `#/runs/${encodeURIComponent(run.id)}` }, run.title ?? run.id),
          el(
            'div',
            { className: 'muted' },
            run.id,
            run.forkedFrom ? ` · fork of ${run.forkedFrom.runId}@${run.forkedFrom.step}` : '',
          ),
        ),
        el('td', {}, el('span', { className: `status ${run.status}` }, run.status)),
        el('td', {}, run.agentName),
        el(
          'td',
          {},
          run.sessionId
            ? el('a', { href: `#/sessions/${encodeURIComponent(run.sessionId)}` }, run.sessionId)
            : '—',
        ),
        el('td', {}, run.model ?? '—'),
        el('td', { className: 'num' }, formatTime(run.createdAt)),
        el('td', { className: 'num', 'data-duration': run.durationMs }, formatDuration(run.durationMs)),
        el('td', { className: 'num', 'data-tokens': run.tokens.total }, String(run.tokens.total)),
        el('td', { className: 'num' }, formatUsd(run.costUsd)),
      ),
    );
    table.replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows));
    if (runs.length === 0) table.append(el('caption', {}, 'No runs match.'));
  }

  void load();
  // Live: counts and the current page are read again while the list is shown.
  const timer = setInterval(() => void load(), 3000);
  return () => clearInterval(timer);
}

function toLocalInput(epochMs: number): string {
  const date = new Date(epochMs - new Date().getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
}
