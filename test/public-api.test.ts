/**
 * The public API surface: every name (value or type) each package entry exports, compared with
 * test/public-api.json. A file moved or renamed inside src/ must leave this list unchanged; a change to the
 * public API is a change to that file too (`UPDATE_PUBLIC_API=1 npx vitest run test/public-api.test.ts`).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import packageJson from '../package.json' with { type: 'json' };

const root = new URL('../', import.meta.url);
const snapshotUrl = new URL('public-api.json', import.meta.url);

/** The source file behind each `exports` entry of package.json (`./dist/x/index.js` is `src/x/index.ts`). */
const entries = Object.entries(packageJson.exports)
  .filter(([, target]) => typeof target === 'object')
  .map(([subpath, target]) => ({
    subpath,
    source: fileURLToPath(
      new URL((target as { import: string }).import.replace('./dist/', 'src/').replace(/\.js$/, '.ts'), root),
    ),
  }));

function exportedNames(): Record<string, string[]> {
  const program = ts.createProgram(
    entries.map((e) => e.source),
    { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const surface: Record<string, string[]> = {};
  for (const { subpath, source } of entries) {
    const file = program.getSourceFile(source);
    const symbol = file && checker.getSymbolAtLocation(file);
    surface[subpath] = symbol
      ? checker
          .getExportsOfModule(symbol)
          .map((s) => s.getName())
          .sort()
      : [];
  }
  return surface;
}

describe('the public API surface', () => {
  it('should export from each package entry exactly the names of test/public-api.json', async () => {
    const surface = exportedNames();
    if (process.env.UPDATE_PUBLIC_API) await writeFile(snapshotUrl, `${JSON.stringify(surface, null, 2)}\n`);
    const expected = JSON.parse(await readFile(snapshotUrl, 'utf8')) as Record<string, string[]>;
    expect(Object.values(surface).every((names) => names.length > 0)).toBe(true);
    expect(surface).toEqual(expected);
  }, 60_000);
});
