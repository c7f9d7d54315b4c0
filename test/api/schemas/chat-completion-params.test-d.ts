import { describe, expectTypeOf, it } from 'vitest';
import type { ChatCompletionParamsInput } from '../../../src/api/schemas/chat-completion-params-validator.js';
import type { ContentPartInput } from '../../../src/api/schemas/chat-content-part-schemas.js';
import type { ChatMessageInput } from '../../../src/api/schemas/chat-message-schemas.js';
import type { ToolDefinitionInput } from '../../../src/api/schemas/chat-tool-schemas.js';
import type {
  ChatCompletionCreateParams,
  ChatMessage,
  ContentPart,
  ToolDefinition,
} from '../../../src/api/types/chat.js';

describe('chat-completion schema types', () => {
  it('should accept every hand-written ChatCompletionCreateParams', () => {
    expectTypeOf<ChatCompletionCreateParams>().toExtend<ChatCompletionParamsInput>();
  });

  it('should accept every wire message, part and tool definition', () => {
    expectTypeOf<ChatMessage>().toExtend<ChatMessageInput>();
    expectTypeOf<ContentPart>().toExtend<ContentPartInput>();
    expectTypeOf<ToolDefinition>().toExtend<ToolDefinitionInput>();
  });

  it('should still reject a message with an unknown role at the type level', () => {
    expectTypeOf<{ role: 'developer'; content: string }>().not.toExtend<ChatMessageInput>();
  });
});
