// Greetings, thanks and goodbyes get a short answer of their own instead of the echo: a chat demo
// should not answer "Thanks!" with a restatement of it.

const REPLIES: Array<[RegExp, string]> = [
  [
    /^((great|perfect|awesome|nice|ok|okay),? )?(thanks|thank you|thx|ty|cheers|many thanks)( so much| a lot| very much)?( for (the|your|all the) (help|answer|info|information))?[\s!,.]*$/i,
    "You're welcome! Anything else I can help with?",
  ],
  [
    /^(hi|hello|hey|hiya|howdy|good (morning|afternoon|evening)|greetings)\b[\s!,.]*(there|all|everyone)?[\s!.]*$/i,
    'Hello! How can I help you today?',
  ],
  [
    /^how are you( doing)?( today)?\??$|^how's it going\??$/i,
    "I'm doing well, thanks for asking. What can I do for you?",
  ],
  [
    /^(bye|goodbye|see you|see ya|good night)( for now| later| then| soon)?[\s!.]*$/i,
    'Goodbye! Come back any time.',
  ],
  [
    /^(ok|okay|alright|got it|cool|sounds good|great|perfect|nice)[\s!.]*$/i,
    'Glad that helps. Anything else?',
  ],
];

/** A brief answer to small talk (greeting, thanks, goodbye), or undefined when the text asks for more. */
export function smallTalkReply(text: string): string | undefined {
  const trimmed = text.trim().replace(/[\s!.?]+$/, (end) => (end.includes('?') ? '?' : ''));
  if (trimmed.length > 60) return undefined;
  return REPLIES.find(([pattern]) => pattern.test(trimmed))?.[1];
}
