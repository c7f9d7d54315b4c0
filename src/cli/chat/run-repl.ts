import { createInterface } from 'node:readline';
import type { CommandContext } from '../command.js';
import { formatCliError } from '../format-cli-error.js';
import { createSpinner } from '../ui/spinner.js';
import type { ChatSession, SendOptions } from './chat-session.js';
import { createEventRenderer, preview } from './render-agent-events.js';
import { runSlashCommand } from './slash-commands.js';

/** The interactive chat: streams answers, dims reasoning, shows tool calls, asks before approval-gated tools. */
export async function runRepl(ctx: CommandContext, session: ChatSession): Promise<number> {
  const { stdin, stdout } = ctx.io;
  const style = ctx.style.out;
  const rl = createInterface({ input: stdin, output: stdout, terminal: true, historySize: 200 });
  const ask = (question: string) => new Promise<string>((resolve) => rl.question(question, resolve));
  let running: AbortController | undefined;
  rl.on('SIGINT', () => {
    // Ctrl-C cancels the answer being written; at the prompt it leaves.
    if (running) running.abort();
    else rl.close();
  });

  /** Runs one answer with the spinner, the renderer and approvals; a failure is one line, the chat goes on. */
  const answer = async (run: (options: SendOptions) => Promise<unknown>) => {
    const spinner = createSpinner(stdout);
    const renderer = createEventRenderer({
      answer: stdout,
      trace: stdout,
      style,
      spinner,
      answerPrefix: style.bold('assistant › '),
    });
    const controller = new AbortController();
    running = controller;
    spinner.start('thinking');
    try {
      await run({
        signal: controller.signal,
        onEvent: (event) => renderer.render(event),
        decide: async (item) => {
          renderer.end();
          const reply = await ask(style.yellow(`allow ${item.toolName}(${preview(item.input)})? [y/N] `));
          return /^y(es)?$/i.test(reply.trim());
        },
      });
      renderer.end();
    } catch (error) {
      renderer.end();
      const line = controller.signal.aborted ? 'cancelled' : formatCliError(error, ctx.io.env).line;
      stdout.write(`${style.red(line)}${style.dim(' (/retry to try again)')}\n`);
    } finally {
      running = undefined;
    }
  };

  stdout.write(
    `${style.bold('svc-agents chat')} ${style.dim(`· model ${session.model} · /help for commands, /exit to leave`)}\n`,
  );
  const promptText = style.bold('you › ');
  rl.setPrompt(promptText);
  rl.prompt();
  for await (const line of rl) {
    const slash = runSlashCommand(line, session);
    if (slash.kind === 'exit') break;
    if (slash.kind === 'message') stdout.write(`${style.dim(slash.text)}\n`);
    else if (slash.kind === 'error')
      stdout.write(`${style.red(formatCliError(slash.error, ctx.io.env).line)}\n`);
    else if (slash.kind === 'retry') await answer((options) => session.retry(options));
    else if (line.trim()) await answer((options) => session.send(line, options));
    rl.prompt();
  }
  rl.close();
  stdout.write('\n');
  return 0;
}
