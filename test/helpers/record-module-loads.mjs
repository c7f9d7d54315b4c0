// Preload for a child `node` process (`--import ./test/helpers/record-module-loads.mjs`): appends every
// module Node loads to the file named by RECORD_MODULE_LOADS_FILE, one per line. Two doors, both watched:
// `import` goes through a loader hook (it runs off the main thread, so it writes the file itself), and
// `require()` (CommonJS, or an ES module through require(esm)) goes through Module._load.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const file = process.env.RECORD_MODULE_LOADS_FILE;
if (!file) throw new Error('record-module-loads: set RECORD_MODULE_LOADS_FILE');

register(
  `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  appendFileSync(${JSON.stringify(file)}, 'import ' + url + '\\n');
  return nextLoad(url, context);
}
`)}`,
);

const originalLoad = Module._load;
Module._load = function load(...args) {
  const [request, parent, isMain] = args;
  let resolved = request;
  try {
    resolved = Module._resolveFilename(request, parent, isMain);
  } catch {
    // Let the real load report the error.
  }
  appendFileSync(file, `require ${resolved}\n`);
  return originalLoad.apply(this, args);
};
