import { describe, expect, it } from 'vitest';
import { FileProcessingError, PartInputError, RequestValidationError } from '../../../src/api/errors.js';
import {
  APIError,
  BadRequestError,
  ConfigurationError,
  MissingDependencyError,
  ModelBehaviorError,
  RuntimeConditionError,
  SvcError,
  UserError,
} from '../../../src/core/errors.js';
import { McpConnectionError, McpToolCallError } from '../../../src/mcp/errors.js';
import {
  EventBusUnavailableError,
  QueueUnavailableError,
  StoreRewoundError,
  WorkerClockSkewError,
  WorkerClosedError,
} from '../../../src/queue/queue-errors.js';
import {
  StoreClosedError,
  StoredRunInvalidError,
  StoreUnavailableError,
  StoreWriteError,
} from '../../../src/stores/store-errors.js';
import {
  InvalidToolArgumentsError,
  KnowledgeBaseNameError,
  NoSuchToolError,
  PathOutsideRootError,
  ToolDefinitionError,
  ToolExecutionError,
  ToolOutputTypeError,
  ToolSuspendedError,
  ToolTimeoutError,
} from '../../../src/tools/errors.js';
import { ChatRequestError } from '../../../src/web/web-error.js';

const families = [UserError, ModelBehaviorError, APIError, RuntimeConditionError] as const;

/** The one family each error belongs to, by the family's name. */
function familyOf(error: unknown): string[] {
  return families.filter((family) => family.isInstance(error)).map((family) => family.name);
}

const requestValidationError = new RequestValidationError({
  operation: 'chat.completions.create',
  issues: [{ path: 'messages', message: 'must not be empty', code: 'request_params_invalid' }],
});

describe('error families', () => {
  describe.each([
    ['ConfigurationError', new ConfigurationError({ field: 'apiKey', rule: 'missing' }), 'UserError'],
    [
      'MissingDependencyError',
      new MissingDependencyError({ packageName: 'ioredis', feature: 'redisStore' }),
      'UserError',
    ],
    ['PartInputError', new PartInputError({ field: 'imagePart', rule: 'bad scheme' }), 'UserError'],
    ['ToolDefinitionError', new ToolDefinitionError({ toolName: 'x', rule: 'bad name' }), 'UserError'],
    ['ToolOutputTypeError', new ToolOutputTypeError('function', 'output'), 'UserError'],
    [
      'KnowledgeBaseNameError',
      new KnowledgeBaseNameError({ problem: 'unspecified', knowledgeBase: '', stores: [] }),
      'UserError',
    ],
    ['ChatRequestError', new ChatRequestError({ status: 400, message: 'bad' }), 'UserError'],
    [
      'InvalidToolArgumentsError',
      new InvalidToolArgumentsError({ toolName: 't', argumentsText: '{', issues: [] }),
      'ModelBehaviorError',
    ],
    ['NoSuchToolError', new NoSuchToolError({ toolName: 't', availableTools: [] }), 'ModelBehaviorError'],
    ['PathOutsideRootError', new PathOutsideRootError('../x', 'outside'), 'ModelBehaviorError'],
    ['RequestValidationError', requestValidationError, 'APIError'],
    [
      'ToolExecutionError',
      new ToolExecutionError({ toolName: 't', toolCallId: 'c', message: 'm' }),
      'RuntimeConditionError',
    ],
    [
      'ToolTimeoutError',
      new ToolTimeoutError({ toolName: 't', toolCallId: 'c', timeoutMs: 1 }),
      'RuntimeConditionError',
    ],
    ['ToolSuspendedError', new ToolSuspendedError({ toolName: 't', reason: 'r' }), 'RuntimeConditionError'],
    [
      'FileProcessingError',
      new FileProcessingError('file-1', 'timeout', undefined, 'still parsing'),
      'RuntimeConditionError',
    ],
    ['McpConnectionError', new McpConnectionError({ server: 's', message: 'gone' }), 'RuntimeConditionError'],
    [
      'McpToolCallError',
      new McpToolCallError({ mcpToolName: 't', text: 'failed', result: {} }),
      'RuntimeConditionError',
    ],
    [
      'StoreUnavailableError',
      new StoreUnavailableError({ store: 's', operation: 'o', cause: new Error('x') }),
      'RuntimeConditionError',
    ],
    ['StoreClosedError', new StoreClosedError({ store: 's', operation: 'o' }), 'RuntimeConditionError'],
    [
      'StoredRunInvalidError',
      new StoredRunInvalidError({ runId: 'r', key: 'k', problem: 'p' }),
      'RuntimeConditionError',
    ],
    [
      'QueueUnavailableError',
      new QueueUnavailableError({ runId: 'r', operation: 'enqueue' }),
      'RuntimeConditionError',
    ],
    ['WorkerClosedError', new WorkerClosedError(), 'RuntimeConditionError'],
    [
      'StoreWriteError',
      new StoreWriteError({ store: 's', path: 'p', code: 'ENOSPC' }),
      'RuntimeConditionError',
    ],
    [
      'StoreRewoundError',
      new StoreRewoundError({ runId: 'r', version: 3, highest: 5 }),
      'RuntimeConditionError',
    ],
    [
      'WorkerClockSkewError',
      new WorkerClockSkewError({ skewMs: 60_000, toleranceMs: 5_000 }),
      'RuntimeConditionError',
    ],
    [
      'EventBusUnavailableError',
      new EventBusUnavailableError({ runId: 'r', operation: 'publish', timeoutMs: 10_000 }),
      'RuntimeConditionError',
    ],
  ])('when a %s is thrown', (name, error, family) => {
    it(`should be caught as a ${family} and as no other family`, () => {
      expect(error.name).toBe(name);
      expect(SvcError.isInstance(error)).toBe(true);
      expect(familyOf(error)).toEqual([family]);
    });
  });

  describe('when a request breaks a rule before it is sent', () => {
    it('should be the 400 the service would answer, catchable as a BadRequestError', () => {
      expect(requestValidationError).toBeInstanceOf(BadRequestError);
      expect(BadRequestError.isInstance(requestValidationError)).toBe(true);
      expect(requestValidationError.status).toBe(400);
      expect(requestValidationError.type).toBe('request_params_invalid');
      expect(requestValidationError.requestId).toBeUndefined();
      expect(requestValidationError.isRetryable).toBe(false);
      expect(requestValidationError.message).toBe('messages: must not be empty');
    });
  });

  describe('when a tool returns a value the model cannot be shown', () => {
    it('should no longer be a TypeError', () => {
      expect(new ToolOutputTypeError('symbol', 'output')).not.toBeInstanceOf(TypeError);
    });
  });

  describe('when an optional package is missing', () => {
    it('should name the package and the command that installs it', () => {
      const error = new MissingDependencyError({ packageName: 'pg', feature: 'postgresStore' });
      expect(error.message).toBe('postgresStore needs the optional package "pg": npm install pg');
      expect(error.packageName).toBe('pg');
      expect(error.installCommand).toBe('npm install pg');
    });
  });
});
