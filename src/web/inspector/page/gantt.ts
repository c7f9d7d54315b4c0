import type { ModelLane, RunTimeline, ToolLane } from './api-types.js';
import { el, formatDuration } from './dom.js';

// The run's timeline as a Gantt chart: a lane per model request (queued, waiting for the first token,
// streaming) and per tool call (parallel calls side by side, eager starts in their own colour, the
// approval wait before them), with marks for retries, rate-limit waits, fallbacks, resumes and takeovers.

/** The chart of `timeline`, or a note when the run's state carries no times. */
export function renderGantt(timeline: RunTimeline): HTMLElement {
  if (
    !timeline.timed &&
    timeline.lanes.every((lane) => lane.kind === 'model' || lane.startedAt === undefined)
  ) {
    return el(
      'p',
      { className: 'muted' },
      'This run was stored without times (written before the inspector existed).',
    );
  }
  const start = Math.min(timeline.start, ...timeline.lanes.map(laneStart));
  const span = Math.max(timeline.end - start, 1);
  const at = (time: number) => `${(((time - start) / span) * 100).toFixed(3)}%`;
  const width = (from: number, to: number) => `${Math.max(((to - from) / span) * 100, 0.15).toFixed(3)}%`;
  const seg = (className: string, from: number, to: number, title: string) => {
    const node = el('span', { className: `seg ${className}`, title });
    node.style.left = at(from);
    node.style.width = width(from, to);
    return node;
  };
  const mark = (className: string, time: number, title: string) => {
    const node = el('span', { className: `mark ${className}`, title, role: 'img', 'aria-label': title });
    node.style.left = at(time);
    return node;
  };
  const lanes = el('div', { className: 'lanes' });
  const resumes = el('div', { className: 'track' });
  for (const resume of timeline.resumes) {
    const takeover = resume.from === 'running' && resume.inFlight.length > 0;
    const what = takeover
      ? 'takeover'
      : resume.from === 'running'
        ? resume.steps === 0
          ? 'picked up from the queue'
          : 'taken up again'
        : `resumed from ${resume.from}`;
    if (resume.lastCheckpointAt !== undefined && resume.lastCheckpointAt < resume.at) {
      const waited = `waited ${formatDuration(resume.at - resume.lastCheckpointAt)} since the last checkpoint`;
      resumes.append(seg('waiting', resume.lastCheckpointAt, resume.at, waited));
    }
    const text = `${what} by ${resume.worker}${resume.inFlight.length > 0 ? ` (${resume.inFlight.length} call(s) in flight settled)` : ''}`;
    resumes.append(mark(takeover ? 'takeover' : 'resume', resume.at, text));
  }
  if (timeline.resumes.length > 0) {
    lanes.append(laneRow('resumes', 'Resumes and takeovers', resumes));
  }
  for (const lane of timeline.lanes) {
    const track = el('div', { className: 'track' });
    if (lane.kind === 'model') drawModel(lane, track, seg, mark);
    else drawTool(lane, track, seg, mark, timeline.end);
    const name =
      lane.kind === 'model'
        ? `step ${lane.step} · ${lane.error !== undefined ? 'failed' : (lane.model ?? 'model')} · ${formatDuration(lane.doneAt - lane.requestedAt)}`
        : `  ${lane.toolName}${lane.eager ? ' (eager)' : ''} · ${lane.status}${lane.startedAt !== undefined && lane.finishedAt !== undefined ? ` · ${formatDuration(lane.finishedAt - lane.startedAt)}` : ''}`;
    lanes.append(
      laneRow(lane.kind, name, track, lane.kind === 'tool' ? lane.toolCallId : `step-${lane.step}`),
    );
  }
  return el(
    'figure',
    { className: 'gantt', 'aria-label': 'Timeline' },
    lanes,
    el(
      'ul',
      { className: 'legend', 'aria-label': 'Legend' },
      ...[
        ['queued', 'queued for budget'],
        ['waiting', 'waiting for first token'],
        ['streaming', 'answering'],
        ['tool', 'tool running'],
        ['eager', 'eager start'],
        ['approval', 'waiting for approval'],
        ['retry', 'retry'],
        ['ratelimit', 'rate-limited, waited'],
        ['failed', 'failed request'],
        ['takeover', 'fallback / takeover'],
        ['resume', 'resume'],
      ].map(([kind, text]) => el('li', {}, el('span', { className: `swatch ${kind}` }), text!)),
    ),
  );
}

function laneRow(kind: string, name: string, track: HTMLElement, id?: string): HTMLElement {
  return el(
    'div',
    { className: 'lane', 'data-lane': kind, 'data-id': id },
    el('span', { className: 'name', title: name }, name),
    track,
  );
}

type Seg = (className: string, from: number, to: number, title: string) => HTMLElement;
type Mark = (className: string, time: number, title: string) => HTMLElement;

function drawModel(lane: ModelLane, track: HTMLElement, seg: Seg, mark: Mark): void {
  const sent = lane.sentAt ?? lane.requestedAt;
  if (sent > lane.requestedAt)
    track.append(seg('queued', lane.requestedAt, sent, `queued ${formatDuration(sent - lane.requestedAt)}`));
  const first = lane.firstTokenAt ?? sent;
  if (first > sent)
    track.append(seg('waiting', sent, first, `first token after ${formatDuration(first - sent)}`));
  if (lane.error !== undefined) {
    track.append(seg('failed', lane.requestedAt, lane.doneAt, `failed: ${lane.error}`));
    drawMarks(lane, track, mark);
    return;
  }
  const tokens = `${lane.tokens.input} in (${lane.tokens.cached} cached) · ${lane.tokens.output} out`;
  track.append(seg('streaming', first, lane.doneAt, `${lane.model ?? ''} answered: ${tokens}`));
  drawMarks(lane, track, mark);
}

function drawMarks(lane: ModelLane, track: HTMLElement, mark: Mark): void {
  for (const retry of lane.retries) {
    const why = retry.rateLimited
      ? `rate limited (${retry.status ?? ''}), waited ${formatDuration(retry.delayMs)}`
      : `retry after ${retry.status ?? 'error'}, waited ${formatDuration(retry.delayMs)}`;
    track.append(
      mark(retry.rateLimited ? 'ratelimit retry' : 'retry', retry.at, `attempt ${retry.attempt}: ${why}`),
    );
  }
  for (const move of lane.fallbacks) {
    track.append(mark('fallback', move.at, `fallback ${move.from} → ${move.to} (${move.reason})`));
  }
}

function drawTool(lane: ToolLane, track: HTMLElement, seg: Seg, mark: Mark, end: number): void {
  const approval = lane.approval;
  if (approval) {
    const decided = approval.decidedAt ?? (approval.decision === 'pending' ? end : approval.requestedAt);
    track.append(
      seg(
        'approval',
        approval.requestedAt,
        decided,
        `approval ${approval.decision}, waited ${formatDuration(decided - approval.requestedAt)}`,
      ),
    );
  }
  if (lane.startedAt !== undefined) {
    const finished = lane.finishedAt ?? end;
    track.append(
      seg(
        `tool ${lane.status}${lane.eager ? ' eager' : ''}`,
        lane.startedAt,
        finished,
        `${lane.toolName} ${lane.status}`,
      ),
    );
    if (lane.eager) track.append(mark('resume', lane.startedAt, 'started early, while the model streamed'));
  }
}

function laneStart(lane: ModelLane | ToolLane): number {
  if (lane.kind === 'model') return lane.requestedAt;
  return Math.min(
    lane.startedAt ?? Number.POSITIVE_INFINITY,
    lane.approval?.requestedAt ?? Number.POSITIVE_INFINITY,
  );
}
