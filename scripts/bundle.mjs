// Bundles the entry points (main, emulator, web, telemetry, mcp, stores, queue, testing, CLI) into dist with shared
// chunks. Why not plain tsc
// output: every ES module costs time at import, and a cold `import 'svc-agents'` of ~100 small files cost
// 1.45x a bare `import 'undici'`; bundled it is about 1.05x (bench/results). Types still come from tsc.
import { build } from 'esbuild';
import { tsImport } from 'tsx/esm/api';

// The web chat page of `svc-agents serve`, bundled for browsers and defined into the Node bundle as a
// string (see src/web/page-bundle.ts), so the published package needs no esbuild at run time.
// Its options come from that file, so the built page and the one bundled from source are the same.
const { pageBuildOptions } = await tsImport('../src/web/page-bundle.ts', import.meta.url);
const page = await build({
  ...pageBuildOptions,
  entryPoints: ['src/cli/demo/serve/page/app.ts'],
  logLevel: 'warning',
});

// The run inspector's page script, defined the same way (src/web/inspector/load-inspector-script.ts).
const inspectorPage = await build({
  ...pageBuildOptions,
  entryPoints: ['src/web/inspector/page/inspector-app.ts'],
  logLevel: 'warning',
});

await build({
  entryPoints: [
    'src/index.ts',
    'src/emulator/index.ts',
    'src/web/index.ts',
    'src/telemetry/index.ts',
    'src/mcp/index.ts',
    'src/stores/index.ts',
    'src/queue/index.ts',
    'src/testing/index.ts',
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
  define: {
    __SVC_CHAT_PAGE_JS__: JSON.stringify(page.outputFiles[0].text),
    __SVC_INSPECTOR_PAGE_JS__: JSON.stringify(inspectorPage.outputFiles[0].text),
  },
  sourcemap: true,
  logLevel: 'warning',
});

// svc-agents/client runs in browsers: its own bundle, no Node built-ins, no shared chunks.
await build({
  entryPoints: ['src/browser-client/index.ts'],
  outfile: 'dist/browser-client/index.js',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  sourcemap: true,
  logLevel: 'warning',
});
