import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { SvcClient } from '../../api/svc-client.js';
import type { VectorStore } from '../../api/types/vector-stores.js';
import { listAllKnowledgeBases, pickKnowledgeBase } from '../../tools/built-in/find-knowledge-bases.js';

// Defaults and argument checks shared by several commands.

/** Model of `svc-agents chat` and `kb ask` unless `--model` or `SVC_MODEL` says otherwise (the spec recommends it for tools). */
export const defaultChatModel = 'svc-3.5-flash-2603';

/** Model of `svc-agents image`: the only image model of the spec. */
export const defaultImageModel = 'svc-1x-medium';

/** Model of `svc-agents voice clone`. */
export const defaultVoiceModel = 'svc-tts-mini';

/**
 * Finds a knowledge base by id or by name (the service answers creation with both); a name several
 * stores share fails listing them, never picking one silently.
 */
export async function resolveStore(client: SvcClient, idOrName: string): Promise<VectorStore> {
  return pickKnowledgeBase(await listAllKnowledgeBases(client), idOrName);
}

/** Resolves a file argument against `cwd` and checks it is a readable regular file, before any upload. */
export async function resolveInputFile(cwd: string, path: string): Promise<string> {
  const absolute = resolve(cwd, path);
  const info = await stat(absolute).catch(() => undefined);
  if (!info) throw new Error(`no such file: ${path}`);
  if (!info.isFile()) throw new Error(`not a file: ${path}`);
  return absolute;
}
