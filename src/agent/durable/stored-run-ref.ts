/** Marks `agent.resume(runId)`'s input apart from a user's `AgentInput`: a run to load from the store. */
export class StoredRunRef {
  readonly runId: string;

  constructor(runId: string) {
    this.runId = runId;
  }
}
