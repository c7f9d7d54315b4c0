import type { SearchResultFile } from './search-knowledge-base.js';

// The service's retrieval answers with text that names files in two ways: as the source of a passage
// ("According to office-hours.md: The Lisbon office ...") and in passing ("See also returns.md."). Only
// the first kind is drawn on. So the text after each mention of a file, up to the next mention, is that
// file's part, and the file's score is the share of the query's words its part contains: a mention with
// nothing relevant after it scores 0 and is not a source.

// Words too common to tell passages apart.
const STOP_WORDS = new Set(
  'the and for are but not you your with this that from have has was were what when where which who why how does did can could would should will there their they them then than its into about over under also see according'.split(
    ' ',
  ),
);

/** The distinct content words of `text`: lower case, three letters or more, no stop words. */
export function contentWords(text: string): Set<string> {
  const words = text.toLowerCase().match(/\p{L}[\p{L}\p{N}]{2,}/gu) ?? [];
  return new Set(words.filter((word) => !STOP_WORDS.has(word)));
}

/**
 * The files among `files` that `passages` draws on for `query`, best first, each with its `score` (0-1:
 * the share of the query's content words found in the passage text attributed to the file).
 */
export function rankCitedFiles(
  passages: string,
  files: readonly Omit<SearchResultFile, 'score'>[],
  query: string,
): SearchResultFile[] {
  const mentions = files
    .flatMap((file) =>
      [file.file_name, file.file_id].flatMap((label) =>
        positionsOf(passages, label).map((at) => ({ file, at, label })),
      ),
    )
    .sort((a, b) => a.at - b.at);
  const queryWords = contentWords(query);
  const parts = new Map<string, string>();
  mentions.forEach((mention, index) => {
    const end = mentions[index + 1]?.at ?? passages.length;
    const part = passages.slice(mention.at + mention.label.length, end);
    parts.set(mention.file.file_id, `${parts.get(mention.file.file_id) ?? ''} ${part}`);
  });
  const ranked: SearchResultFile[] = [];
  for (const file of files) {
    const part = parts.get(file.file_id);
    if (part === undefined) continue;
    const words = contentWords(part);
    const shared = [...queryWords].filter((word) => words.has(word)).length;
    // A query of stop words only cannot rank: every file the passages quote counts, equally.
    const score = queryWords.size === 0 ? (words.size > 0 ? 1 : 0) : shared / queryWords.size;
    if (score > 0) ranked.push({ ...file, score: Math.round(score * 1000) / 1000 });
  }
  return ranked.sort((a, b) => b.score - a.score);
}

function positionsOf(text: string, label: string): number[] {
  const positions: number[] = [];
  if (!label) return positions;
  for (let at = text.indexOf(label); at !== -1; at = text.indexOf(label, at + label.length))
    positions.push(at);
  return positions;
}
