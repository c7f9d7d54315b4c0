import MiniSearch from 'minisearch';
import { STOP_WORDS } from './model/words.js';

/** A file of a vector store, with its text. */
export interface SearchableFile {
  fileId: string;
  fileName: string;
  text: string;
}

/** A passage found for a query. */
export interface Passage {
  fileId: string;
  fileName: string;
  text: string;
  score: number;
}

interface PassageDoc {
  id: number;
  fileId: string;
  fileName: string;
  text: string;
}

const PASSAGE_CHARS = 600;

/** Splits a text into passages of about 600 characters, on paragraph and then sentence boundaries. */
export function splitPassages(text: string): string[] {
  const passages: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const clean = paragraph.replace(/\s+/g, ' ').trim();
    if (!clean) continue;
    let current = '';
    for (const sentence of clean.split(/(?<=[.!?])\s+/)) {
      if (current && current.length + sentence.length > PASSAGE_CHARS) {
        passages.push(current);
        current = '';
      }
      current = current ? `${current} ${sentence}` : sentence;
    }
    if (current) passages.push(current);
  }
  return passages;
}

/** BM25 search (minisearch) over the passages of some files; best first. */
export class PassageIndex {
  private readonly index = new MiniSearch<PassageDoc>({
    fields: ['text', 'fileName'],
    storeFields: ['fileId', 'fileName', 'text'],
    processTerm: (term) => {
      const lower = term.toLowerCase();
      return STOP_WORDS.has(lower) ? null : lower;
    },
    searchOptions: { boost: { fileName: 0.5 }, prefix: true, fuzzy: 0.15 },
  });

  constructor(files: SearchableFile[]) {
    let id = 0;
    const docs: PassageDoc[] = [];
    for (const file of files) {
      for (const text of splitPassages(file.text))
        docs.push({ id: id++, fileId: file.fileId, fileName: file.fileName, text });
    }
    this.index.addAll(docs);
  }

  /** The `limit` best passages for a query. */
  search(query: string, limit = 3): Passage[] {
    return this.index
      .search(query)
      .slice(0, limit)
      .map((hit) => ({
        fileId: String(hit.fileId),
        fileName: String(hit.fileName),
        text: String(hit.text),
        score: hit.score,
      }));
  }
}
