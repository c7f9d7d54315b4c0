import type { RunDetail } from './api-types.js';
import { api, el, formatDuration, formatTime, formatUsd } from './dom.js';
import { renderEvents } from './event-log.js';
import { renderGantt } from './gantt.js';
import { renderChat, renderCheckpoints } from './run-conversation.js';

// One run: its figures, fork and export, the timeline, the conversation as a chat with tool cards, each
// checkpoint with its diff, and the raw event log. A running run is followed live: its record's version
// is polled (cheap) and the page is drawn again when it moves.

/** Renders run `runId` into `main`; answers a function that stops following it. */
export function showRun(main: HTMLElement, runId: string): () => void {
  let version = -1;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const live = el('span', { className: 'live', role: 'status' });

  async function draw(): Promise<void> {
    let detail: RunDetail;
    try {
      detail = await api<RunDetail>(`runs/${encodeURIComponent(runId)}`);
    } catch (error) {
      main.replaceChildren(el('h2', {}, 'Run'), el('p', { className: 'bad' }, (error as Error).message));
      return;
    }
    version = detail.record.version;
    // Keep what the reader opened (details) across a live redraw.
    const open = new Set([...main.querySelectorAll('details[open]')].map((node) => node.id));
    main.replaceChildren(...renderRun(detail, live));
    for (const id of open)
      if (id) (document.getElementById(id) as HTMLDetailsElement | null)?.setAttribute('open', '');
  }

  async function poll(): Promise<void> {
    if (stopped) return;
    try {
      const now = await api<{ version: number; status: string }>(`runs/${encodeURIComponent(runId)}/version`);
      live.textContent = now.status === 'running' ? 'live: following this run' : '';
      if (now.version !== version) await draw();
    } catch {
      // The next poll tries again.
    }
    if (!stopped) timer = setTimeout(() => void poll(), 1000);
  }

  void draw().then(() => poll());
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function renderRun(detail: RunDetail, live: HTMLElement): HTMLElement[] {
  const { record, summary, timeline } = detail;
  const totals = timeline.totals;
  const card = (label: string, value: Node | string) =>
    el('div', {}, el('dt', {}, label), el('dd', {}, value));
  return [
    el(
      'h2',
      { 'data-run': record.id },
      summary.title ?? record.id,
      ' ',
      el('span', { className: `status ${record.status}` }, record.status),
      ' ',
      live,
    ),
    el(
      'dl',
      { className: 'cards' },
      card('Run', record.id),
      card('Agent', record.agentName),
      card('Started', formatTime(record.createdAt)),
      card('Duration', formatDuration(summary.durationMs)),
      card('Steps', String(totals.steps)),
      card(
        'Tokens',
        `${totals.tokens.total} (${totals.tokens.input} in, ${totals.tokens.cached} cached, ${totals.tokens.output} out)`,
      ),
      card('Cost', formatUsd(summary.costUsd ?? totals.costUsd)),
      record.sessionId
        ? card(
            'Session',
            el('a', { href: `#/sessions/${encodeURIComponent(record.sessionId)}` }, record.sessionId),
          )
        : '',
      record.tenant ? card('Tenant', record.tenant) : '',
      record.forkedFrom
        ? card(
            'Forked from',
            el(
              'a',
              { href: `#/runs/${encodeURIComponent(record.forkedFrom.runId)}`, 'data-link': 'parent' },
              `${record.forkedFrom.runId} at step ${record.forkedFrom.step}`,
            ),
          )
        : '',
      detail.forks.length > 0
        ? card(
            'Forks',
            el(
              'span',
              {},
              ...detail.forks.flatMap((fork, i) => [
                i > 0 ? ', ' : '',
                el(
                  'a',
                  { href: `#/runs/${encodeURIComponent(fork.runId)}`, 'data-link': 'fork' },
                  `${fork.runId} (step ${fork.step})`,
                ),
              ]),
            ),
          )
        : '',
    ),
    record.error ? el('p', { className: 'bad' }, `Failed: ${record.error}`) : '',
    detail.stateError
      ? el(
          'p',
          { className: 'bad', id: 'state-error' },
          `The state could not be read, shown as stored: ${detail.stateError}`,
        )
      : '',
    record.interruptions.length > 0
      ? el(
          'p',
          { className: 'muted' },
          `Waiting for approval: ${record.interruptions.map((item) => item.toolName).join(', ')}`,
        )
      : '',
    renderActions(detail),
    el('h3', {}, 'Timeline'),
    renderGantt(timeline),
    el(
      'div',
      { className: 'split' },
      el(
        'section',
        { 'aria-label': 'Conversation' },
        el('h3', {}, 'Messages'),
        renderChat(detail.messages, detail.steps, record.sessionStart ?? 0),
      ),
      el(
        'section',
        { 'aria-label': 'Checkpoints' },
        el('h3', {}, 'Checkpoints'),
        renderCheckpoints(detail.checkpoints, detail.steps),
      ),
    ),
    el('h3', {}, 'Event log'),
    renderEvents(record.id),
  ].filter((node): node is HTMLElement => typeof node !== 'string');
}

function renderActions(detail: RunDetail): HTMLElement {
  const { record, actions, steps } = detail;
  const result = el('p', { role: 'status', className: 'muted' });
  const stepOptions = () =>
    Array.from({ length: steps.length + 1 }, (_, index) =>
      el(
        'option',
        { value: String(index) },
        index < steps.length ? `before step ${index}` : 'after the last step',
      ),
    );
  const forkStep = el('select', { name: 'step', id: 'fork-step' }, ...stepOptions());
  const model = el('input', { name: 'model', id: 'fork-model', placeholder: 'same model' });
  const instructions = el('input', {
    name: 'instructions',
    id: 'fork-instructions',
    placeholder: 'same instructions',
  });
  const forkButton = el(
    'button',
    { type: 'submit', className: 'primary', id: 'fork-button' },
    'Fork from here',
  );
  const fork = el(
    'form',
    { 'aria-label': 'Fork' },
    el(
      'fieldset',
      {},
      el('label', { for: 'fork-step' }, 'Start a new run', forkStep),
      el('label', { for: 'fork-model' }, 'Model', model),
      el('label', { for: 'fork-instructions' }, 'Instructions', instructions),
      forkButton,
    ),
  );
  if (!actions.fork.enabled) {
    forkButton.disabled = true;
    forkButton.title = actions.fork.reason;
    fork.append(
      el('p', { className: 'muted', id: 'fork-disabled' }, `Fork disabled: ${actions.fork.reason}`),
    );
  } else if (!actions.fork.canChange) {
    model.disabled = true;
    instructions.disabled = true;
    model.title = instructions.title = 'changing them needs the agent given as a factory';
  }
  fork.addEventListener('submit', (event) => {
    event.preventDefault();
    forkButton.disabled = true;
    const body: Record<string, unknown> = { step: Number(forkStep.value) };
    if (model.value.trim()) body.model = model.value.trim();
    if (instructions.value.trim()) body.instructions = instructions.value.trim();
    api<{ runId: string }>(`runs/${encodeURIComponent(record.id)}/fork`, { method: 'POST', body })
      .then(({ runId }) => {
        location.hash = `#/runs/${encodeURIComponent(runId)}`;
      })
      .catch((error: Error) => {
        result.textContent = `Fork failed: ${error.message}`;
        forkButton.disabled = false;
      });
  });
  const from = el(
    'select',
    { name: 'from', id: 'export-from' },
    ...steps.map((step) => el('option', { value: String(step.index) }, `step ${step.index}`)),
  );
  const to = el(
    'select',
    { name: 'to', id: 'export-to' },
    ...steps.map((step) => el('option', { value: String(step.index) }, `step ${step.index}`)),
  );
  to.value = String(Math.max(steps.length - 1, 0));
  const exportLink = el(
    'a',
    { id: 'export-link', href: '#', download: `${record.id}.json` },
    'Export as replay recording',
  );
  const updateLink = () => {
    exportLink.setAttribute(
      'href',
      `api/runs/${encodeURIComponent(record.id)}/export?from=${from.value}&to=${to.value}`,
    );
  };
  from.addEventListener('change', updateLink);
  to.addEventListener('change', updateLink);
  updateLink();
  const exporter = el(
    'fieldset',
    { 'aria-label': 'Export' },
    el('label', { for: 'export-from' }, 'From', from),
    el('label', { for: 'export-to' }, 'To', to),
    actions.export.enabled
      ? exportLink
      : el(
          'span',
          { className: 'muted', id: 'export-disabled' },
          `Export disabled: ${actions.export.reason}`,
        ),
  );
  if (steps.length === 0)
    exporter.replaceChildren(el('span', { className: 'muted' }, 'Nothing to export yet'));
  return el('section', { className: 'actions', 'aria-label': 'Fork and export' }, fork, exporter, result);
}
