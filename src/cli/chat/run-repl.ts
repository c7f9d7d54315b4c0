import { createInterface } from 'node:readline';
import type { CommandContext } from '../command.js';
import { formatCliError } from '../format-cli-error.js';
import { createSpinner } from '../ui/spinner.js';
import type { ChatSession } from './chat-session.js';
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
    else if (line.trim()) {
      const spinner = createSpinner(stdout);
      const renderer = createEventRenderer({
        answer: stdout,
        trace: stdout,
        style,
        spinner,
        answerPrefix: style.bold('assistant › '),
      });
      running = new AbortController();
      spinner.start('thinking');
      try {
        await session.send(line, {
          signal: running.signal,
          onEvent: (event) => renderer.render(event),
          decide: async (item) => {
            renderer.end();
            const answer = await ask(style.yellow(`allow ${item.toolName}(${preview(item.input)})? [y/N] `));
            return /^y(es)?$/i.test(answer.trim());
          },
        });
        renderer.end();
      } catch (error) {
        renderer.end();
        const aborted = running.signal.aborted;
        stdout.write(`${style.red(aborted ? 'cancelled' : formatCliError(error, ctx.io.env).line)}\n`);
      } finally {
        running = undefined;
      }
    }
    rl.prompt();
  }
  rl.close();
  stdout.write('\n');
  return 0;
}
