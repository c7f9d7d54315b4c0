// svc-agents/testing: record and replay a client's requests, for tests that run offline.
export type { CanonicalRequest } from './canonical-request.js';
export type { CassetteFile, Interaction, RecordedResponse } from './cassette.js';
export { ReplayMissError, ScriptNotConsumedError } from './errors.js';
export {
  defineEval,
  type EvalDefinition,
  type EvalVariant,
  loadEvalData,
  type TaskContext,
} from './evals/define-eval.js';
export { renderEvalReport } from './evals/eval-report.js';
export {
  compareToBaseline,
  type EvalResult,
  type ItemResult,
  type RunEvalOptions,
  runEval,
  type VariantResult,
} from './evals/run-eval.js';
export {
  budget,
  citesSource,
  type ExpectedToolCall,
  exact,
  includes,
  jsonSchemaValid,
  llmJudge,
  matches,
  type ScoreInput,
  type Scorer,
  type TaskOutput,
  toolTrajectory,
} from './evals/scorers.js';
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
