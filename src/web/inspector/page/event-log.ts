import { api, el } from './dom.js';

/** The stored event log, read on demand (a live run's grows; "Load more" reads what was appended). */
export function renderEvents(runId: string): HTMLElement {
  const list = el('ol', { className: 'events', start: 0 });
  const note = el('p', { className: 'muted', role: 'status' });
  let last = -1;
  const more = el('button', { type: 'button', id: 'events-more' }, 'Load events');
  more.addEventListener('click', async () => {
    try {
      const { kept, events } = await api<{ kept: boolean; events: Array<{ id: number; data: string }> }>(
        `runs/${encodeURIComponent(runId)}/events?after=${last}`,
      );
      if (!kept) note.textContent = 'This store keeps no event log.';
      else note.textContent = events.length === 0 ? 'No more events.' : '';
      for (const event of events) {
        last = event.id;
        list.append(el('li', { value: event.id }, el('pre', {}, event.data)));
      }
      more.textContent = 'Load more';
    } catch (error) {
      note.textContent = (error as Error).message;
    }
  });
  return el('details', { id: 'event-log' }, el('summary', {}, 'Raw events'), more, note, list);
}
