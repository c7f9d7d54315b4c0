/**
 * The layers of docs/architecture.md, checked on every import of src/: an import never points to a higher
 * layer, and the folders import each other without cycles.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));

/** Each top-level folder (or file) of src/ and its layer: an import may point to its own layer or lower. */
const LAYER: Record<string, number> = {
  core: 0,
  transport: 1,
  api: 2,
  tools: 3,
  agent: 4,
  emulator: 4,
  mcp: 4,
  stores: 5,
  telemetry: 5,
  testing: 5,
  'browser-client': 5,
  queue: 6,
  web: 6,
  cli: 7,
  'index.ts': 7,
};

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return Promise.resolve(/\.tsx?$/.test(entry.name) ? [path] : []);
    }),
  );
  return nested.flat();
}

/** The top-level folder (or file) of src/ a path is in. */
function topOf(path: string): string {
  return relative(src, path).split(/[\\/]/)[0] as string;
}

/** Every import of src/ that crosses two top-level folders: from, to, and the file and specifier. */
async function crossingImports() {
  const imports: { from: string; to: string; where: string }[] = [];
  for (const file of await sourceFiles(src)) {
    const text = await readFile(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = resolve(dirname(file), match[1] as string);
      if (relative(src, target).startsWith('..')) continue;
      const from = topOf(file);
      const to = topOf(target.replace(/\.js$/, '.ts'));
      if (from !== to) imports.push({ from, to, where: `${relative(src, file)} imports ${match[1]}` });
    }
  }
  return imports;
}

describe('the layers of src/', async () => {
  const imports = await crossingImports();

  it('should know the layer of every top-level folder', () => {
    expect(imports.length).toBeGreaterThan(100);
    const unknown = [...new Set(imports.flatMap((i) => [i.from, i.to]))].filter((top) => !(top in LAYER));
    expect(unknown).toEqual([]);
  });

  it('should never import from a higher layer', () => {
    const upward = imports.filter((i) => (LAYER[i.to] ?? 99) > (LAYER[i.from] ?? -1)).map((i) => i.where);
    expect(upward).toEqual([]);
  });

  it('should have no cycle between folders', () => {
    const edges = new Set(imports.map((i) => `${i.from}>${i.to}`));
    const both = [...edges].filter((edge) => {
      const [a, b] = edge.split('>');
      return edges.has(`${b}>${a}`);
    });
    expect(both).toEqual([]);
  });
});
