import { readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const readme = await readFile(new URL('README.md', root), 'utf8');

/** `<!-- snippet: path#region -->` followed by a ts block: the block must equal that region of that file. */
const snippets = [...readme.matchAll(/<!-- snippet: ([^#]+)#([\w-]+) -->\n```ts\n([\s\S]*?)\n```/g)].map(
  (m) => ({
    path: m[1] as string,
    region: m[2] as string,
    code: m[3] as string,
  }),
);

function dedent(text: string): string {
  const lines = text.split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)?.[0].length ?? 0));
  return lines.map((l) => l.slice(indent)).join('\n');
}

async function region(path: string, name: string): Promise<string | undefined> {
  const source = await readFile(new URL(path, root), 'utf8');
  const escaped = name.replace(/[-]/g, '\\-');
  const match = new RegExp(`^[ \\t]*// #region ${escaped}\\n([\\s\\S]*?)^[ \\t]*// #endregion`, 'm').exec(
    source,
  );
  return match ? dedent((match[1] as string).replace(/\n$/, '')) : undefined;
}

describe('README.md', () => {
  it('should show the tour: tools, runs, streams, structured output, approval, RAG, errors, emulator, plan', () => {
    expect(snippets.map((s) => s.region)).toEqual(
      expect.arrayContaining([
        'define-tool',
        'run-agent',
        'stream',
        'structured-output',
        'human-approval',
        'rag',
        'errors',
        'emulator-ci',
        'plan-channel',
      ]),
    );
  });

  it.each(snippets.map((s) => [`${s.path}#${s.region}`, s] as const))(
    'should show %s exactly as the test runs it',
    async (_name, snippet) => {
      expect(snippet.code).toBe(await region(snippet.path, snippet.region));
    },
  );

  it('should give the quickstart as exactly two commands', () => {
    const quickstart = /## Quickstart\n\n```sh\n([\s\S]*?)\n```/.exec(readme)?.[1];
    expect(quickstart?.split('\n')).toEqual(['npm install && npm start', 'npm test']);
  });

  it('should link only to files that exist', async () => {
    const links = [...readme.matchAll(/\]\(((?!https?:)[^)#]+)\)/g)].map((m) => m[1] as string);
    expect(links.length).toBeGreaterThan(5);
    const missing = [];
    for (const link of links)
      if (!(await stat(new URL(link, root)).catch(() => undefined))) missing.push(link);
    expect(missing).toEqual([]);
  });
});
