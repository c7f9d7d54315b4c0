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

/**
 * Words a request uses for what a tool's name says in other words: "Is it raining" asks a weather tool,
 * "Enable dark_mode" a feature-flag tool. One line per concept.
 */
const RELATED = [
  'weather rain raining rainy sunny snow snowing forecast temperature umbrella windy warm cold',
  'flag feature enable disable activate deactivate toggle',
  'order buy purchase',
].map((line) => line.split(' '));

/** The words, with the words related to any of them. */
export function withRelatedWords(words: string[]): Set<string> {
  const out = new Set(words);
  for (const group of RELATED) if (group.some((w) => out.has(w))) for (const w of group) out.add(w);
  return out;
}
