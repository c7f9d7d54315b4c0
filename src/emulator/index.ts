/**
 * The svc emulator (`svc-agents/emulator`): a local, contract-faithful stand-in of the service, with scripted
 * answers and fault injection.
 */
export { runEmulatorCli } from './cli.js';
export { startEmulator } from './start-emulator.js';
export type {
  Emulator,
  EmulatorFault,
  EmulatorModelOptions,
  EmulatorOptions,
  EmulatorRateLimit,
  RecordedRequest,
  ScriptedAnswer,
  ScriptedToolCall,
} from './types.js';
