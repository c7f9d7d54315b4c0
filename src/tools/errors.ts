import type { VectorStore } from '../api/types/vector-stores.js';
import { ModelBehaviorError, RuntimeConditionError, UserError } from '../core/errors.js';

// The tools layer's errors, in the families of `core/errors.ts`: tool definitions and outputs are the
// caller's mistakes, bad tool calls the model's, failing or waiting tools runtime conditions.

/** One problem found in a tool call's arguments; `path` is like `items[0].name`, empty for the root. */
export interface ToolArgumentIssue {
  path: string;
  message: string;
}

/**
 * The model called a tool with arguments that are not JSON or break its schema (the model's mistake).
 * The message is what the model sees: `Invalid arguments for get_weather: city: expected string, got number`.
 */
export class InvalidToolArgumentsError extends ModelBehaviorError {
  /** Name of the tool that was called. */
  readonly toolName: string;
  /** The raw `function.arguments` text the model sent. */
  readonly argumentsText: string;
  /** Every problem found, in schema order. */
  readonly issues: ToolArgumentIssue[];

  constructor(options: {
    toolName: string;
    argumentsText: string;
    issues: ToolArgumentIssue[];
    cause?: unknown;
  }) {
    const details = options.issues
      .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
      .join('; ');
    super(`Invalid arguments for ${options.toolName}: ${details}`, { cause: options.cause });
    this.toolName = options.toolName;
    this.argumentsText = options.argumentsText;
    this.issues = options.issues;
  }
}

/** The model called a tool that is not in the tool set (the model's mistake); lists what is available. */
export class NoSuchToolError extends ModelBehaviorError {
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

/** A tool was defined wrongly (the caller's mistake): bad name, non-object parameters, missing description, duplicates. */
export class ToolDefinitionError extends UserError {
  /** Name of the offending tool, as given (may itself be the invalid part). */
  readonly toolName: string;
  /** The rule that was broken, without the tool name. */
  readonly rule: string;

  constructor(options: { toolName: string; rule: string; cause?: unknown }) {
    super(`Invalid tool "${options.toolName}": ${options.rule}`, { cause: options.cause });
    this.toolName = options.toolName;
    this.rule = options.rule;
  }
}

/** Why a knowledge-base name or id could not be used. */
export type KnowledgeBaseNameProblem = 'not-found' | 'ambiguous' | 'taken' | 'unspecified';

/** How many stores an error message lists before it says "and N more". */
const LISTED = 10;

function listStores(stores: readonly VectorStore[]): string {
  const shown = stores.slice(0, LISTED).map((store) => `${store.name} (${store.id})`);
  const more = stores.length > LISTED ? `, and ${stores.length - LISTED} more` : '';
  return `${shown.join(', ')}${more}`;
}

function messageOf(problem: KnowledgeBaseNameProblem, name: string, stores: readonly VectorStore[]): string {
  switch (problem) {
    case 'not-found':
      return stores.length === 0
        ? `no knowledge base with id or name "${name}": the account has none`
        : `no knowledge base with id or name "${name}"; the account has: ${listStores(stores)}`;
    case 'ambiguous':
      return `the name "${name}" matches ${stores.length} knowledge bases: ${listStores(stores)}; use one of the ids`;
    case 'unspecified':
      return stores.length === 0
        ? 'the account has no knowledge bases yet: create one and add files to it first'
        : `the account has ${stores.length} knowledge bases; name the one to use: ${listStores(stores)}`;
    case 'taken':
      return `a knowledge base named "${name}" already exists: ${listStores(stores)}; choose another name, or allow duplicate names`;
  }
}

/**
 * A knowledge base named by the caller or the model is missing, ambiguous (several stores share the name:
 * all of them are listed), not named where the choice is needed or, when creating one, already taken.
 */
export class KnowledgeBaseNameError extends UserError {
  /** What went wrong. */
  readonly problem: KnowledgeBaseNameProblem;
  /** The name or id asked for (empty when none was: `unspecified`). */
  readonly knowledgeBase: string;
  /** The stores involved: the matches (ambiguous, taken) or the account's stores (not found, unspecified). */
  readonly stores: readonly VectorStore[];

  constructor(options: {
    problem: KnowledgeBaseNameProblem;
    knowledgeBase: string;
    stores: readonly VectorStore[];
  }) {
    super(messageOf(options.problem, options.knowledgeBase, options.stores));
    this.problem = options.problem;
    this.knowledgeBase = options.knowledgeBase;
    this.stores = options.stores;
  }
}

/** A tool's `execute` threw; the message is the model-visible `Error in <tool>: <message>`, the original is `cause`. */
export class ToolExecutionError extends RuntimeConditionError {
  /** Name of the tool that failed. */
  readonly toolName: string;
  /** Id of the tool call that failed. */
  readonly toolCallId: string;

  constructor(options: { toolName: string; toolCallId: string; message: string; cause?: unknown }) {
    super(`Error in ${options.toolName}: ${options.message}`, { cause: options.cause });
    this.toolName = options.toolName;
    this.toolCallId = options.toolCallId;
  }
}

/** A tool call ran longer than its `timeoutMs`; its signal was aborted with this error as the reason. */
export class ToolTimeoutError extends RuntimeConditionError {
  /** Name of the tool that timed out. */
  readonly toolName: string;
  /** Id of the tool call that timed out. */
  readonly toolCallId: string;
  /** The limit that was exceeded, in milliseconds. */
  readonly timeoutMs: number;

  constructor(options: { toolName: string; toolCallId: string; timeoutMs: number }) {
    super(`Tool ${options.toolName} timed out after ${options.timeoutMs} ms`);
    this.toolName = options.toolName;
    this.toolCallId = options.toolCallId;
    this.timeoutMs = options.timeoutMs;
  }
}

/**
 * Thrown by a tool whose work waits for a human (an agent used as a tool paused for an approval). The call
 * is then not recorded as done: it stays pending, and runs again when the run resumes.
 */
export class ToolSuspendedError extends RuntimeConditionError {
  /** Name of the suspended tool. */
  readonly toolName: string;

  constructor(options: { toolName: string; reason: string }) {
    super(`Tool ${options.toolName} is waiting: ${options.reason}`);
    this.toolName = options.toolName;
  }
}

/**
 * A tool returned a value the model cannot be shown (a function or a symbol): the tool author's mistake.
 * Before svc-agents 0.2 this extended `TypeError`; catch it as a {@link UserError}.
 */
export class ToolOutputTypeError extends UserError {
  constructor(kind: string, where: string) {
    super(
      `returned a ${kind} at ${where}; a tool must return text or JSON-compatible data (objects, arrays, numbers, Map, Set, Date, Error, BigInt)`,
    );
  }
}

/** A local path given to a file tool lies outside the allowed root, or is not a readable regular file. */
export class PathOutsideRootError extends ModelBehaviorError {
  /** The path as the model gave it. */
  readonly requestedPath: string;

  constructor(requestedPath: string, reason: string) {
    super(`Refused path "${requestedPath}": ${reason}`);
    this.requestedPath = requestedPath;
  }
}
