/** Text with the characters a regular expression treats specially escaped. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether `needle` occurs in `haystack` as whole words. */
export function mentions(haystack: string, needle: string): boolean {
  return position(haystack, needle) >= 0;
}

/** Where `needle` occurs in `haystack` as whole words, or -1. */
export function position(haystack: string, needle: string): number {
  if (!needle) return -1;
  const m = new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(needle)}($|[^\\p{L}\\p{N}])`, 'iu').exec(haystack);
  return m ? m.index : -1;
}

/** Whether a request (lower-cased text and its content words) carries a cue word or phrase. */
export function cueIn(lower: string, words: Set<string>, cue: string): boolean {
  if (cue.includes(' ') || /[^a-z]/.test(cue)) return lower.includes(cue);
  return (
    words.has(cue) || mentions(lower, cue) || [...words].some((w) => w.startsWith(cue) && cue.length >= 4)
  );
}
