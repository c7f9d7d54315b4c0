// svc-agents/testing: record and replay a client's requests, for tests that run offline.
export type { CanonicalRequest } from './canonical-request.js';
export type { CassetteFile, Interaction, RecordedResponse } from './cassette.js';
export { ReplayMissError, ScriptNotConsumedError } from './errors.js';
export { type Recording, type RecordMode, type RecordReplayOptions, recordReplay } from './record-replay.js';
export {
  type DispatchMode,
  RecordReplayDispatcher,
  type RecordReplayDispatcherOptions,
} from './record-replay-dispatcher.js';
export {
  type ScriptedCall,
  type ScriptedModel,
  type ScriptedTextOptions,
  scriptModel,
} from './script-model.js';
