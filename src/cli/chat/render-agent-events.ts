import type { AgentEvent } from '../../agent/events.js';
import type { Style } from '../ui/ansi.js';
import type { Spinner } from '../ui/spinner.js';

/** Where and how a run's events are drawn. */
export interface EventRendererOptions {
  /** Receives the answer text as it streams. */
  answer: NodeJS.WritableStream;
  /** Receives reasoning and tool activity (the same stream as `answer` in a terminal). */
  trace: NodeJS.WritableStream;
  style: Style;
  spinner?: Spinner;
  /** Printed before the first answer text of a run, e.g. `assistant › `. */
  answerPrefix?: string;
}

/** Draws agent events for a terminal: answer streamed, reasoning dimmed, each tool call and result on a line. */
export interface EventRenderer {
  render(event: AgentEvent): void;
  /** Ends the current line; call once the run is over. */
  end(): void;
}

const MAX_PREVIEW = 160;

/** Short one-line preview of a tool input or output. */
export function preview(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > MAX_PREVIEW ? `${text.slice(0, MAX_PREVIEW - 1)}…` : text;
}

/** Creates a renderer; one per run. */
export function createEventRenderer(options: EventRendererOptions): EventRenderer {
  const { answer, trace, style, spinner, answerPrefix = '' } = options;
  let open: 'answer' | 'reasoning' | undefined;
  let answered = false;

  const closeLine = () => {
    if (open) (open === 'answer' ? answer : trace).write('\n');
    open = undefined;
  };
  const traceLine = (text: string) => {
    spinner?.stop();
    closeLine();
    trace.write(`${text}\n`);
  };

  let sawText = false;
  const writeAnswer = (text: string) => {
    spinner?.stop();
    if (open !== 'answer') {
      closeLine();
      if (!answered) answer.write(answerPrefix);
      open = 'answer';
    }
    answered = true;
    answer.write(text);
  };

  return {
    render(event) {
      switch (event.type) {
        case 'start-step':
          if (event.step > 0) spinner?.start('thinking');
          return;
        case 'reasoning-delta':
          if (!event.text) return;
          spinner?.stop();
          if (open !== 'reasoning') {
            closeLine();
            trace.write(style.dim('  thinking: '));
            open = 'reasoning';
          }
          trace.write(style.dim(event.text.replace(/\n+/g, ' ')));
          return;
        case 'text-delta':
          if (!event.text) return;
          sawText = true;
          writeAnswer(event.text);
          return;
        case 'audio-delta':
          // An audio model speaks its answer: the transcript is the text to show, unless text came too.
          if (event.transcript && !sawText) writeAnswer(event.transcript);
          return;
        case 'tool-call':
          traceLine(style.cyan(`  → ${event.toolName}(${preview(event.input)})`));
          spinner?.start(`running ${event.toolName}`);
          return;
        case 'tool-result':
          traceLine(style.green(`  ← ${event.toolName}: ${preview(event.output)}`));
          return;
        case 'tool-error':
          traceLine(style.yellow(`  ✗ ${event.toolName}: ${preview(event.error.message)}`));
          return;
        case 'source':
          traceLine(style.dim(`  source: ${event.title}`));
          return;
        case 'hosted-tool-call':
          traceLine(style.cyan(`  → ${event.name ?? event.toolType} (run by the service)`));
          return;
        case 'tool-approval-request':
          traceLine(style.yellow(`  ? ${event.toolName}(${preview(event.input)}) needs approval`));
          return;
        case 'finish':
          if (event.usage.cost !== undefined)
            traceLine(style.dim(`  cost of this turn: ${Number(event.usage.cost.toPrecision(3))}`));
          spinner?.stop();
          return;
        case 'error':
        case 'abort':
          spinner?.stop();
          return;
        default:
          return;
      }
    },
    end() {
      spinner?.stop();
      closeLine();
    },
  };
}
