import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Bundles the CLI as `npm run build` does (packages left as imports) into `.artifacts/` of this checkout
 * and answers the path of its `main.js`: a CLI a plain `node` runs, with no TypeScript loader in the
 * process, as users run the published package.
 */
export async function buildCliBundle(): Promise<string> {
  const outdir = join(root, '.artifacts', `cli-bundle-${process.pid}`);
  await mkdir(outdir, { recursive: true });
  await build({
    entryPoints: [join(root, 'src/cli/main.ts')],
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return join(outdir, 'main.js');
}
