import { SvcError } from '../../transport/errors/svc-error.js';

/** The model called a tool that is not in the tool set (the model's mistake); lists what is available. */
export class NoSuchToolError extends SvcError {
  /** The name the model asked for. */
  readonly toolName: string;
  /** Names of the function tools that do exist. */
  readonly availableTools: string[];

  constructor(options: { toolName: string; availableTools: string[] }) {
    const available = options.availableTools.length > 0 ? options.availableTools.join(', ') : '(none)';
    super(`No tool named "${options.toolName}"; available: ${available}`);
    this.toolName = options.toolName;
    this.availableTools = options.availableTools;
  }
}
