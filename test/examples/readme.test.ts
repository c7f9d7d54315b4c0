import { readdir, readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const readme = await readFile(new URL('README.md', root), 'utf8');
const docNames = (await readdir(new URL('docs/', root))).filter((name) => name.endsWith('.md'));
/** README.md and every page of docs/, with their text. */
const pages = [
  { path: 'README.md', text: readme },
  ...(await Promise.all(
    docNames.map(async (name) => ({
      path: `docs/${name}`,
      text: await readFile(new URL(`docs/${name}`, root), 'utf8'),
    })),
  )),
];

/** `<!-- snippet: path#region -->` followed by a ts block: the block must equal that region of that file. */
function snippetsOf(page: { path: string; text: string }) {
  return [...page.text.matchAll(/<!-- snippet: ([^#]+)#([\w-]+) -->\n```ts\n([\s\S]*?)\n```/g)].map((m) => ({
    page: page.path,
    path: m[1] as string,
    region: m[2] as string,
    code: m[3] as string,
  }));
}
const snippets = pages.flatMap(snippetsOf);

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

describe('README.md and docs/', () => {
  it('should give the README a tour of a tool, an agent and a run', () => {
    expect(snippetsOf(pages[0] as (typeof pages)[number]).map((s) => s.region)).toEqual([
      'define-tool',
      'create-agent',
      'run-agent',
    ]);
  });

  it('should show streams, structured output, approval, RAG, errors, the emulator and the plan channel in docs/', () => {
    expect(snippets.filter((s) => s.page !== 'README.md').map((s) => s.region)).toEqual(
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

  it.each(snippets.map((s) => [`${s.page}: ${s.path}#${s.region}`, s] as const))(
    'should show %s exactly as the test runs it',
    async (_name, snippet) => {
      expect(snippet.code).toBe(await region(snippet.path, snippet.region));
    },
  );

  it('should give the quickstart as exactly two commands', () => {
    const quickstart = /## Quickstart\n\n```sh\n([\s\S]*?)\n```/.exec(readme)?.[1];
    expect(quickstart?.split('\n')).toEqual(['npm install && npm start', 'npm test']);
  });

  it('should stay a short front page (at most 15 KB) that lists every page of docs/', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15_000);
    const listed = [...readme.matchAll(/\]\(docs\/([\w-]+\.md)\)/g)].map((m) => m[1]);
    expect(docNames.filter((name) => !listed.includes(name))).toEqual([]);
  });

  it.each(pages.map((page) => [page.path, page] as const))(
    'should link from %s only to files that exist',
    async (_name, page) => {
      const base = new URL(page.path, root);
      const links = [...page.text.matchAll(/\]\(((?!https?:|mailto:)[^)#]+)(?:#[^)]*)?\)/g)].map(
        (m) => m[1] as string,
      );
      const missing = [];
      for (const link of links)
        if (!(await stat(new URL(link, base)).catch(() => undefined))) missing.push(link);
      expect(missing).toEqual([]);
    },
  );
});
