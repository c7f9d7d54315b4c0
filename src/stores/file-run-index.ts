import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunQueryPage } from '../agent/durable/run-query.js';
import type { RunRecord } from '../agent/durable/store.js';
import { type IndexedRun, indexRun, pageOfRuns } from './page-of-runs.js';
import type { NormalizedRunQuery } from './run-query-input.js';
import { StoredRunInvalidError } from './store-errors.js';
import { skippedRunWarning } from './stored-run.js';

/** How `FileRunIndex` reads a run file. */
export interface FileRunIndexOptions {
  /** The folder of the run files. */
  runsDir: string;
  /** Reads the run file `name` (in `runsDir`), or `undefined` when it is gone. */
  read: (name: string) => Promise<RunRecord | undefined>;
  /** Told about a run file that cannot be read (skipped). */
  onWarning: (message: string) => void;
}

/**
 * The run summaries of a `fileStore`, built from the run files on the first query and brought up to date
 * on each: a file whose inode, modification time or size changed since it was indexed is read again, a
 * file that is gone is dropped. The files themselves are the index's truth, so a run written, deleted or
 * pruned by any process on the folder is listed as its file says, with no second write to keep in step.
 */
export class FileRunIndex {
  readonly #options: FileRunIndexOptions;
  // By file name: the file's stamp when read, and what was indexed of it (undefined: unreadable).
  readonly #files = new Map<string, { stamp: string; indexed: IndexedRun | undefined }>();

  constructor(options: FileRunIndexOptions) {
    this.#options = options;
  }

  /** One page of the runs matching `query`, after bringing the index up to date with the files. */
  async page(query: NormalizedRunQuery): Promise<RunQueryPage> {
    await this.#refresh();
    const runs: IndexedRun[] = [];
    for (const { indexed } of this.#files.values()) if (indexed) runs.push(indexed);
    return pageOfRuns(runs, query);
  }

  async #refresh(): Promise<void> {
    const { runsDir, read, onWarning } = this.#options;
    const names = (await readdir(runsDir)).filter((name) => name.endsWith('.json'));
    const stamps = await Promise.all(
      names.map((name) =>
        stat(join(runsDir, name)).then(
          (stats) => `${stats.ino}:${stats.mtimeMs}:${stats.size}`,
          () => undefined,
        ),
      ),
    );
    const seen = new Set<string>();
    for (const [i, name] of names.entries()) {
      const stamp = stamps[i];
      if (stamp === undefined) continue;
      seen.add(name);
      if (this.#files.get(name)?.stamp === stamp) continue;
      let indexed: IndexedRun | undefined;
      try {
        const record = await read(name);
        indexed = record && indexRun(record);
      } catch (error) {
        if (!StoredRunInvalidError.isInstance(error)) throw error;
        onWarning(skippedRunWarning(error));
      }
      this.#files.set(name, { stamp, indexed });
    }
    for (const name of this.#files.keys()) if (!seen.has(name)) this.#files.delete(name);
  }
}
