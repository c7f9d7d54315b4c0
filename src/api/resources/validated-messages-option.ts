/**
 * Internal request option of `chat.completions.create`, not part of the public API: the number of leading
 * `messages` that an earlier request of the same conversation sent unchanged and that passed validation
 * then. The agent sets it so each turn parses only its new messages; every rule still holds for them.
 */
export const validatedMessagesOption: unique symbol = Symbol('svc-agents.validatedMessages');

/** Request options with the internal {@link validatedMessagesOption}. */
export interface InternalChatRequestOptions {
  [validatedMessagesOption]?: number | undefined;
}
