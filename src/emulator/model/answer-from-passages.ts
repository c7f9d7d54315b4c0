import type { ToolExchange } from './describe-tool-results.js';
import { contentWords } from './words.js';

/** A knowledge-base search result as the `search_knowledge_base` tool returns it. */
interface PassageResult {
  knowledge_base: string;
  passages: string;
  files: Array<{ file_name: string }>;
}

function passageResults(content: string): PassageResult[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return undefined;
  }
  const results = (value as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return undefined;
  const valid = results.filter(
    (item): item is PassageResult =>
      typeof item?.knowledge_base === 'string' &&
      typeof item.passages === 'string' &&
      Array.isArray(item.files),
  );
  return valid.length === results.length ? valid : undefined;
}

/** The sentence of `text` sharing the most content words with the question (ties: the earliest). */
function bestSentence(text: string, question: Set<string>): { sentence: string; score: number } {
  // The retrieval's own framing ("According to x.md:", "See also y.md.") is not part of the documents.
  const body = text.replace(/^According to [^:]+:\s*/, '').replace(/\s*See also [^.]+\.\s*$/, '');
  let best = { sentence: '', score: 0 };
  for (const sentence of body.split(/(?<=[.!?])\s+/)) {
    const score = new Set(contentWords(sentence).filter((word) => question.has(word))).size;
    if (score > best.score) best = { sentence: sentence.trim(), score };
  }
  return best;
}

/**
 * The demo model's answer to knowledge-base search results: the passage sentence that best answers the
 * question, with the file it comes from named as its source; `undefined` when the tool results are not
 * knowledge-base searches (the generic description applies then).
 */
export function answerFromPassages(exchanges: readonly ToolExchange[], question: string): string | undefined {
  const results = exchanges.map((exchange) => passageResults(exchange.content));
  if (results.length === 0 || results.some((result) => result === undefined)) return undefined;
  const words = new Set(contentWords(question));
  const answers: Array<{ text: string; score: number }> = [];
  const searched: string[] = [];
  for (const result of results.flat() as PassageResult[]) {
    searched.push(result.knowledge_base);
    if (result.files.length === 0) continue;
    const { sentence, score } = bestSentence(result.passages, words);
    if (score === 0) continue;
    const files = result.files.map((file) => file.file_name).join(', ');
    answers.push({ text: `${sentence} (source: ${files} in ${result.knowledge_base})`, score });
  }
  // A passage that shares one word with the question is noise beside one that shares four.
  const best = Math.max(0, ...answers.map((answer) => answer.score));
  const relevant = answers.filter((answer) => answer.score * 2 >= best).map((answer) => answer.text);
  if (relevant.length === 0) {
    return `I found nothing about that in the knowledge base ${[...new Set(searched)].join(', ')}.`;
  }
  return relevant.join('\n');
}
