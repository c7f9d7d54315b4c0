const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A one-line spinner for a TTY; a no-op on anything else, so piped output stays clean. */
export interface Spinner {
  start(label: string): void;
  /** Clears the spinner line; safe to call when not spinning. */
  stop(): void;
  readonly spinning: boolean;
}

/** Creates a spinner writing to `stream`, drawn only when the stream is a TTY. */
export function createSpinner(stream: NodeJS.WritableStream & { isTTY?: boolean }): Spinner {
  let timer: NodeJS.Timeout | undefined;
  let frame = 0;
  let text = '';
  const draw = () => {
    stream.write(`\r\u001b[2K${frames[frame % frames.length]} ${text}`);
    frame++;
  };
  return {
    get spinning() {
      return timer !== undefined;
    },
    start(label) {
      if (!stream.isTTY) return;
      text = label;
      if (timer) return;
      draw();
      timer = setInterval(draw, 80);
      // The spinner must never keep the process alive on its own.
      timer.unref();
    },
    stop() {
      if (!timer) return;
      clearInterval(timer);
      timer = undefined;
      stream.write('\r\u001b[2K');
    },
  };
}
