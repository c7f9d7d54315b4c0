/** Minimal ANSI styling; disabled when the stream is not a TTY or NO_COLOR is set (https://no-color.org). */
export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  cyan(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

const colored: Style = {
  dim: wrap(2, 22),
  bold: wrap(1, 22),
  cyan: wrap(36, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  red: wrap(31, 39),
};

const identity = (text: string) => text;
const plain: Style = {
  dim: identity,
  bold: identity,
  cyan: identity,
  green: identity,
  yellow: identity,
  red: identity,
};

/** Returns a styler for a stream: colours only on a TTY and without `NO_COLOR`. */
export function createStyle(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Style {
  return stream.isTTY && !env.NO_COLOR ? colored : plain;
}
