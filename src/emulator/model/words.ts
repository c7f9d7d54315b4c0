/** Words too common to decide which tool a message is about. */
export const STOP_WORDS = new Set(
  (
    'a about above after again all also am an and any are as at be been before being below between both but by can ' +
    'could did do does doing down during each few for from further get gets had has have having he her here hers him ' +
    'his how i if in into is it its just me more most my no nor not now of off on once only or other our out over own ' +
    'please same she should so some such than that the their them then there these they this those through to too ' +
    'under until up very was we were what when where which while who whom why will with would you your yours tell ' +
    'show give find use uses used using return returns returned set sets tool tools function call given current ' +
    'value values let like want need know thing things one two make could may might much many'
  ).split(' '),
);

/** Lower-case content words of a text: split on `_`, camelCase and non-letters, stop words dropped, plurals folded. */
export function contentWords(text: string): string[] {
  const words = text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z\u00C0-\u024F]+/)
    .map((word) => word.toLowerCase())
    .filter((word) => word.length > 2 && !STOP_WORDS.has(word));
  return words.map(stem);
}

function stem(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('s') && !word.endsWith('ss') && word.length > 3) return word.slice(0, -1);
  return word;
}

// Words that often start a request; a capitalised first word is a name only when it is not one of these.
const SENTENCE_STARTERS = new Set(
  (
    'add book calculate check compute convert count create delete describe explain fetch hello hey hi list look ' +
    'lookup name open order please remind remove run say schedule search send sum summarize translate update write'
  ).split(' '),
);

/** Values a message offers for tool arguments. */
export interface MessageHints {
  /** The whole message, trimmed of trailing punctuation. */
  text: string;
  numbers: number[];
  /** Text in double or single quotes. */
  quoted: string[];
  /** Runs of capitalised words that do not start a sentence ("New York"). */
  names: string[];
}

/** Extracts numbers, quoted text and capitalised names from a message. */
export function messageHints(text: string): MessageHints {
  const numbers = [...text.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
  const quoted = [...text.matchAll(/"([^"]+)"|“([^”]+)”|'([^']{2,})'/g)].map((m) =>
    (m[1] ?? m[2] ?? m[3] ?? '').trim(),
  );
  const names: string[] = [];
  for (const sentence of text.split(/(?<=[.!?])\s+/)) {
    const tokens = sentence.split(/\s+/);
    let run: string[] = [];
    tokens.forEach((token, i) => {
      const word = token.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
      const lower = word.toLowerCase();
      const capital =
        word.length > 1 &&
        /^\p{Lu}/u.test(word) &&
        !STOP_WORDS.has(lower) &&
        (i > 0 || !SENTENCE_STARTERS.has(lower));
      if (capital) run.push(word);
      if ((!capital || /[^\p{L}]$/u.test(token)) && run.length > 0) {
        names.push(run.join(' '));
        run = [];
      }
    });
    if (run.length > 0) names.push(run.join(' '));
  }
  return { text: text.trim().replace(/[\s.!?]+$/, ''), numbers, quoted, names };
}
