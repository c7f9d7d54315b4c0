/** A progress bar redrawn in place on a TTY; off a TTY it prints one line when each item finishes. */
export interface ProgressBar {
  update(done: number, label?: string): void;
  finish(label?: string): void;
}

const WIDTH = 24;

/** Creates a bar for `total` steps, written to `stream`. */
export function createProgressBar(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  total: number,
  title: string,
): ProgressBar {
  const render = (done: number, label: string) => {
    const ratio = total === 0 ? 1 : Math.min(1, done / total);
    const filled = Math.round(ratio * WIDTH);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}`;
    return `${title} [${bar}] ${done}/${total}${label ? ` ${label}` : ''}`;
  };
  return {
    update(done, label = '') {
      if (stream.isTTY) stream.write(`\r\u001b[2K${render(done, label)}`);
    },
    finish(label = '') {
      if (stream.isTTY) stream.write(`\r\u001b[2K${render(total, label)}\n`);
    },
  };
}
