// Small talk by intent, not by exact phrase: a short message made only of greeting, thanks, farewell or
// "how are you" words gets a brief answer; a message that asks for anything else is not small talk.
// What the demo cannot do gets one honest answer that says what it can do, never the prompt said back.

/**
 * Intents in the order their answers are joined ("Hello! How are you?" greets, then answers): `words` are
 * every word the intent may use, `marker` a word that shows it (filler alone, "it is", is no intent).
 */
const INTENTS: Array<{ words: RegExp; marker: RegExp; reply: string }> = [
  {
    words: /^(hi|hello|hey|hiya|howdy|greetings|yo|morning|afternoon|evening|good|there|all|everyone)$/,
    marker: /^(hi|hello|hey|hiya|howdy|greetings|yo|morning|afternoon|evening)$/,
    reply: 'Hello!',
  },
  {
    words: /^(how|are|you|doing|today|it|going|how's|hows|is|things)$/,
    marker: /^(how|how's|hows)$/,
    reply: "I'm doing well, thanks for asking.",
  },
  {
    words:
      /^(thanks|thank|you|thx|ty|cheers|appreciate|appreciated|it|that|was|so|much|very|a|lot|helpful|great|perfect|awesome|nice|i|really|for|the|help)$/,
    marker: /^(thanks|thank|thx|ty|cheers|appreciate|appreciated|helpful)$/,
    reply: "You're welcome!",
  },
  {
    words: /^(bye|goodbye|see|you|later|soon|tomorrow|then|ya|night|good|for|now|take|care)$/,
    marker: /^(bye|goodbye|see|later|night|care)$/,
    reply: 'Goodbye! Come back any time.',
  },
  {
    words: /^(ok|okay|alright|got|it|cool|sounds|good|great|perfect|nice)$/,
    marker: /^(ok|okay|alright|got|cool|sounds)$/,
    reply: 'Glad that helps.',
  },
];

/** What the demo model is and can do: the answer to "who are you" and to whatever it cannot answer. */
export const DEMO_ABILITIES =
  "I'm the svc emulator's demo model, not a language model, so I can't answer that. I can call the tools " +
  'you give me with arguments taken from your message (a calculator for ' +
  'arithmetic, a weather tool for the weather), search your knowledge bases and fill structured output from a JSON schema.';

/** A brief answer to small talk (greeting, thanks, goodbye), or undefined when the text asks for more. */
export function smallTalkReply(text: string): string | undefined {
  const words = text.toLowerCase().match(/[a-z']+/g) ?? [];
  if (words.length === 0 || words.length > 10) return undefined;
  if (/^(who|what) are you$|^what can you do$|^(help|what do you do)$/.test(words.join(' ')))
    return `${DEMO_ABILITIES.replace(", so I can't answer that", '')}`;
  const present = INTENTS.map((intent) => words.some((w) => intent.marker.test(w)));
  if (!present.some(Boolean)) return undefined;
  // Every word must belong to an intent the message shows: "Thanks, now summarise the report" asks for more.
  if (!words.every((w) => INTENTS.some((intent, i) => present[i] && intent.words.test(w)))) return undefined;
  const replies = INTENTS.filter((_, i) => present[i]).map((intent) => intent.reply);
  return `${replies.join(' ')}${present[3] ? '' : ' What can I do for you?'}`;
}
