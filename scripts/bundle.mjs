// Bundles the entry points (main, emulator, stores, queue, CLI) into dist with shared chunks. Why not plain tsc
// output: every ES module costs time at import, and a cold `import 'svc-agents'` of ~100 small files cost
// 1.45x a bare `import 'undici'`; bundled it is about 1.05x (bench/results). Types still come from tsc.
import { build } from 'esbuild';

await build({
  entryPoints: [
    'src/index.ts',
    'src/emulator/index.ts',
    'src/stores/index.ts',
    'src/queue/index.ts',
    'src/cli/main.ts',
  ],
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies stay imports, so users share one zod and one undici with svc-agents.
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: true,
  logLevel: 'warning',
});
