import type { ChatSession } from './chat-session.js';

/** Help for the chat's slash commands. */
export const slashHelp = [
  '/exit            leave the chat (also Ctrl-D)',
  '/reset           forget the conversation',
  '/model <id>      switch model (without an id: show the current one)',
  '/retry           resume the last message that failed, without re-running finished tools',
  '/help            show this help',
].join('\n');

/** What a line starting with `/` asked for. */
export type SlashOutcome =
  | { kind: 'exit' }
  | { kind: 'retry' }
  | { kind: 'message'; text: string }
  /** The command failed (e.g. `/model` of a model the chat cannot use): the chat goes on without it. */
  | { kind: 'error'; error: unknown }
  | { kind: 'not-a-command' };

/** Runs a slash command against the session; any other line is `not-a-command`. */
export function runSlashCommand(line: string, session: ChatSession): SlashOutcome {
  const trimmed = line.trim();
  if (!trimmed.startsWith('/')) return { kind: 'not-a-command' };
  const [command = '', ...rest] = trimmed.split(/\s+/);
  switch (command) {
    case '/exit':
    case '/quit':
      return { kind: 'exit' };
    case '/reset':
      session.reset();
      return { kind: 'message', text: 'conversation cleared' };
    case '/model': {
      const id = rest[0];
      if (!id) return { kind: 'message', text: `model: ${session.model}` };
      try {
        session.setModel(id);
      } catch (error) {
        return { kind: 'error', error };
      }
      return { kind: 'message', text: `model set to ${id}` };
    }
    case '/retry':
      return session.canRetry ? { kind: 'retry' } : { kind: 'message', text: 'nothing to retry' };
    case '/help':
      return { kind: 'message', text: slashHelp };
    default:
      return { kind: 'message', text: `unknown command ${command}; try /help` };
  }
}
