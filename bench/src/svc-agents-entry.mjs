// Where the svc-agents contestant loads the library from: the built main entry (../dist/index.js), or
// SVC_AGENTS_ENTRY to point at another build.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DEFAULT_ENTRY = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/** The file URL of the svc-agents main entry. */
export function svcAgentsEntry() {
  return pathToFileURL(process.env.SVC_AGENTS_ENTRY ?? DEFAULT_ENTRY).href;
}

/** Whether the built entry exists. */
export function svcAgentsBuilt() {
  return existsSync(fileURLToPath(svcAgentsEntry()));
}
