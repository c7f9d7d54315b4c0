/**
 * The AI SDK's `UIMessage` (`ai` 6, `@ai-sdk/react` 3) in the shapes `toUIMessages` writes: what
 * `useChat({ messages })` renders and what its approval helpers read. Kept as our own types so that
 * svc-agents does not depend on `ai`; they are assignable to `ai`'s `UIMessage`.
 */
export interface UIMessage {
  /** Stable for one conversation: the same history gives the same ids. */
  id: string;
  /** Who wrote it; system messages are not shown. */
  role: 'user' | 'assistant';
  /** What it shows, in order. */
  parts: UIMessagePart[];
}

/** A part of a `UIMessage`. */
export type UIMessagePart =
  | { type: 'text'; text: string; state?: 'done' }
  | { type: 'reasoning'; text: string; state?: 'done' }
  | { type: 'file'; mediaType: string; url: string }
  | { type: 'step-start' }
  | {
      type: 'source-document';
      sourceId: string;
      mediaType: string;
      title: string;
      filename?: string;
      providerMetadata?: Record<string, Record<string, string>>;
    }
  | UIToolPart;

/** A tool call with where it stands (`type` is `tool-<name>`, as `useChat` names a tool's part). */
export type UIToolPart = { type: `tool-${string}`; toolCallId: string; providerExecuted?: boolean } & (
  | { state: 'input-available'; input: unknown }
  | { state: 'approval-requested'; input: unknown; approval: { id: string } }
  | { state: 'output-available'; input: unknown; output: unknown }
  | { state: 'output-error'; input: unknown; errorText: string }
  | { state: 'output-denied'; input: unknown; approval: { id: string; approved: false; reason?: string } }
);
