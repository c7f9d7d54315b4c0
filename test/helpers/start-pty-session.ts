import { execFileSync, spawn } from 'node:child_process';
import { childEnv, cliMain, tsxImport } from './run-cli-process.js';

/** True when util-linux `script` is installed: it gives the CLI a real pseudo-terminal. */
export const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/** The CLI running on a pseudo-terminal; keystrokes go in through `type`, the screen comes out in `output`. */
export interface PtySession {
  output(): string;
  /** Sends text as if typed (use `\r` for Enter). */
  type(text: string): void;
  /** Resolves once `pattern` shows up in the output after `from` (an offset into `output()`). */
  waitFor(pattern: RegExp, from?: number, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  kill(): void;
}

/** Starts `svc-agents <args>` under `script -qfec`, which allocates the pty and forwards stdin to it. */
export function startPtySession(args: string[], env: Record<string, string | undefined> = {}): PtySession {
  const command = [process.execPath, '--import', tsxImport, cliMain, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: childEnv({ TERM: 'xterm-256color', COLUMNS: '120', LINES: '40', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const waiter of waiters) waiter();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    output: () => output,
    type: (text) => {
      child.stdin.write(text);
    },
    waitFor(pattern, from = 0, timeoutMs = 45_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(output.slice(from))) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${output.slice(from)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}
