import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** An uploaded file; `readyAt` (ms) is when its status turns from `processed` to `success`. */
export interface FileRecord {
  id: string;
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
  readyAt: number;
  seq: number;
}

/** A file inside a vector store. */
export interface StoreFileRecord {
  id: string;
  created_at: number;
  description?: string;
  seq: number;
}

/** A vector store (knowledge base). */
export interface StoreRecord {
  id: string;
  name: string;
  type: 'text' | 'image';
  created_at: number;
  seq: number;
  files: StoreFileRecord[];
}

/** A cloned voice; `key` identifies a repeated request. */
export interface VoiceRecord {
  id: string;
  file_id: string;
  created_at: number;
  model: string;
  key: string;
  sample_text: string;
  seq: number;
}

interface Snapshot {
  version: 1;
  seq: number;
  files: FileRecord[];
  stores: StoreRecord[];
  voices: VoiceRecord[];
}

/** The emulator's data: in memory, and with a data directory written atomically after every change. */
export class EmulatorState {
  readonly files = new Map<string, FileRecord>();
  readonly stores = new Map<string, StoreRecord>();
  readonly voices = new Map<string, VoiceRecord>();
  private readonly contents = new Map<string, Buffer>();
  private seq = 0;
  /** Bumped on every change, so caches (search indexes) know when to rebuild. */
  version = 0;

  constructor(private readonly dataDir?: string) {
    if (dataDir) this.load(dataDir);
  }

  /** Next sequence number: orders records created in the same second. */
  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  /** A vector-store id in the service's style: an 18-digit number. */
  numericId(): string {
    return `${Date.now()}${String(this.nextSeq() % 100_000).padStart(5, '0')}`;
  }

  /** A random id with a prefix, e.g. `file-3f2a...`. */
  randomId(prefix: string): string {
    return `${prefix}${randomBytes(12).toString('hex')}`;
  }

  /** Stores a file and its content; with a data directory the content is on disk before this returns. */
  addFile(record: FileRecord, content: Buffer): void {
    if (this.dataDir) writeAtomic(join(this.dataDir, 'files', record.id), content);
    this.contents.set(record.id, content);
    this.files.set(record.id, record);
    this.commit();
  }

  /** Content of a file (read lazily from the data directory). */
  content(id: string): Buffer | undefined {
    const cached = this.contents.get(id);
    if (cached || !this.dataDir || !this.files.has(id)) return cached;
    const content = readFileSync(join(this.dataDir, 'files', id));
    this.contents.set(id, content);
    return content;
  }

  /** Removes a file, its content and its memberships in vector stores. */
  deleteFile(id: string): void {
    this.files.delete(id);
    this.contents.delete(id);
    for (const store of this.stores.values()) store.files = store.files.filter((f) => f.id !== id);
    this.commit();
    if (this.dataDir) rmSync(join(this.dataDir, 'files', id), { force: true });
  }

  /** Records a change: bumps the version and persists the metadata. */
  commit(): void {
    this.version += 1;
    if (!this.dataDir) return;
    const snapshot: Snapshot = {
      version: 1,
      seq: this.seq,
      files: [...this.files.values()],
      stores: [...this.stores.values()],
      voices: [...this.voices.values()],
    };
    writeAtomic(join(this.dataDir, 'state.json'), Buffer.from(JSON.stringify(snapshot)));
  }

  private load(dataDir: string): void {
    mkdirSync(join(dataDir, 'files'), { recursive: true });
    // Temporary files are writes that never got acknowledged (a crash before the rename): drop them.
    for (const dir of [dataDir, join(dataDir, 'files')]) {
      for (const name of readdirSync(dir))
        if (name.endsWith('.tmp')) rmSync(join(dir, name), { force: true });
    }
    const path = join(dataDir, 'state.json');
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return;
    }
    let snapshot: Snapshot;
    try {
      snapshot = JSON.parse(text) as Snapshot;
    } catch (cause) {
      throw new Error(`svc emulator: ${path} is not valid JSON; move it away to start empty`, { cause });
    }
    if (snapshot.version !== 1)
      throw new Error(`svc emulator: ${path} has unknown version ${String(snapshot.version)}`);
    this.seq = snapshot.seq;
    for (const file of snapshot.files) this.files.set(file.id, file);
    for (const store of snapshot.stores) this.stores.set(store.id, store);
    for (const voice of snapshot.voices) this.voices.set(voice.id, voice);
  }
}

/** Write to a temporary file, fsync it, rename it over the target, fsync the directory: all or nothing. */
function writeAtomic(path: string, data: Buffer): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dir = path.slice(0, path.lastIndexOf('/'));
  try {
    const dirFd = openSync(dir, 'r');
    fsyncSync(dirFd);
    closeSync(dirFd);
  } catch {
    // Some platforms cannot fsync a directory; the rename itself is still atomic.
  }
}
