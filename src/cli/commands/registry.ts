import type { CommandSpec } from '../command.js';
import { chatCommand } from './chat.js';
import { emulatorCommand } from './emulator.js';
import { evalCommand } from './eval.js';
import {
  filesContentCommand,
  filesGetCommand,
  filesLsCommand,
  filesRmCommand,
  filesUploadCommand,
} from './files.js';
import { imageCommand } from './image.js';
import { inspectCommand } from './inspect.js';
import { kbAddCommand } from './kb-add.js';
import { kbAskCommand } from './kb-ask.js';
import { kbCreateCommand } from './kb-create.js';
import { kbLsCommand } from './kb-ls.js';
import { mcpServeCommand } from './mcp-serve.js';
import { modelsGetCommand, modelsLsCommand } from './models.js';
import {
  runsApproveCommand,
  runsLsCommand,
  runsPruneCommand,
  runsRejectCommand,
  runsShowCommand,
  runsStatsCommand,
} from './runs.js';
import { serveCommand } from './serve.js';
import { tokensCommand } from './tokens.js';
import { voiceCloneCommand } from './voice-clone.js';
import { voiceLsCommand } from './voice-ls.js';
import { workerCommand } from './worker.js';

/** Every command of `svc-agents`, in the order `--help` lists them. */
export const commands: CommandSpec[] = [
  chatCommand,
  serveCommand,
  kbCreateCommand,
  kbAddCommand,
  kbAskCommand,
  kbLsCommand,
  modelsLsCommand,
  modelsGetCommand,
  filesLsCommand,
  filesUploadCommand,
  filesGetCommand,
  filesRmCommand,
  filesContentCommand,
  imageCommand,
  voiceCloneCommand,
  voiceLsCommand,
  tokensCommand,
  evalCommand,
  mcpServeCommand,
  emulatorCommand,
  workerCommand,
  runsLsCommand,
  runsShowCommand,
  runsStatsCommand,
  runsApproveCommand,
  runsRejectCommand,
  inspectCommand,
  runsPruneCommand,
];
