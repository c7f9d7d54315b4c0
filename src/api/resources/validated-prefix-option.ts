/**
 * Internal request option of `chat.completions.create`, not part of the public API: an earlier request of
 * the same conversation that passed validation (`params`), and how many leading `messages` of this one it
 * sent unchanged. The agent sets it so each turn parses only its new messages, and the scalar fields only
 * when they differ from that request's; every rule still holds for what is new.
 */
export const validatedPrefixOption: unique symbol = Symbol('svc-agents.validatedPrefix');

/** What an earlier, validated request of the conversation tells the validator. */
export interface ValidatedPrefix {
  /** Leading messages sent unchanged (the same objects). */
  messages: number;
  /** The earlier request's params. */
  params: object;
}

/** Request options with the internal {@link validatedPrefixOption}. */
export interface InternalChatRequestOptions {
  [validatedPrefixOption]?: ValidatedPrefix | undefined;
}
