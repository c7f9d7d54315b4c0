import type { ChatRunContinue, ChatRunner, ChatRunStart } from './chat-runner.js';
import { type ChatStateStore, chatKeys, trySignal } from './chat-state.js';
import { type ChatAgent, type ExecuteChatRunOptions, executeChatRun } from './execute-chat-run.js';

/** Options of `inProcessChatRunner`. */
export interface InProcessChatRunnerOptions
  extends Pick<ExecuteChatRunOptions, 'leaseMs' | 'stopCheckMs' | 'keepEndedRunsMs'> {
  /** The agent that answers. */
  agent: ChatAgent;
  /** The shared store (the chat handler's). */
  store: ChatStateStore;
  /** Told about a failure of the runner itself (a store fault while ending a run). @default console.error */
  onError?: (error: unknown) => void;
}

/** A `ChatRunner` that executes each run in this process: the chat handler's default. */
export function inProcessChatRunner(options: InProcessChatRunnerOptions): ChatRunner {
  const { agent, store, onError = console.error, ...timing } = options;
  const running = new Map<string, AbortController>();
  const execute = (run: ExecuteChatRunOptions['run']) => {
    const controller = new AbortController();
    running.set(run.runId, controller);
    void executeChatRun({ agent, store, run, signal: controller.signal, onError, ...timing })
      .catch(onError)
      .finally(() => running.delete(run.runId));
  };
  return {
    async start(run: ChatRunStart) {
      execute({ kind: 'start', ...run });
    },
    async continue(run: ChatRunContinue) {
      execute({ kind: 'continue', ...run });
    },
    async stop(runId) {
      // The run may execute in another process: the signal reaches it there.
      await trySignal(store, chatKeys.stopChannel(runId), 'stop');
    },
    async close() {
      for (const controller of running.values()) controller.abort(new Error('The chat runner closed.'));
      running.clear();
    },
  };
}
