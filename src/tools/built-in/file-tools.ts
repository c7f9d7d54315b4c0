import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isSafePathId, pathIdRule } from '../../api/schemas/validate-resource-id.js';
import type { SvcClient } from '../../api/svc-client.js';
import type { FileObject } from '../../api/types/files.js';
import { loadZod } from '../../core/load-module.js';
import { defineTool } from '../define-tool.js';
import { ToolDefinitionError } from '../errors.js';
import { truncateToolOutput } from '../format-tool-output.js';
import type { Tool } from '../tool.js';
import { compact } from '../utils.js';
import { readInsideRoot } from './resolve-inside-root.js';
import { defaultSecretFilePatterns, refuseSecretFile } from './secret-files.js';
import { selectTools, type ToolSelection } from './select-tools.js';

/** Names of the file tools. */
export type FileToolName = 'list_files' | 'get_file' | 'read_file_content' | 'delete_file' | 'upload_file';

/** Options of `fileTools`. */
export interface FileToolsOptions extends ToolSelection<FileToolName> {
  /** Local directory `upload_file` may read from; without it `upload_file` is left out. */
  root?: string | undefined;
  /** Override the approval default of a tool (`delete_file` needs approval by default). */
  needsApproval?: Partial<Record<FileToolName, boolean>>;
  /** Longest text `read_file_content` hands the model, in characters. @default 20_000 */
  maxContentChars?: number;
  /** How long `upload_file` waits for the uploaded file to be ready, in ms. @default 120_000 */
  fileReadyTimeoutMs?: number;
  /** Let `upload_file` read a file with several hard links (another may lie outside `root`). @default false */
  allowHardLinks?: boolean;
  /**
   * File names `upload_file` refuses to read, checked on every part of the asked and of the real path
   * (`.env*`, private keys, credential files); `false` reads them all.
   * @default defaultSecretFilePatterns
   */
  secretFiles?: readonly RegExp[] | false;
}

const purposes = ['file-extract', 'retrieval-text', 'retrieval-image', 'storage'] as const;

/** Sums up a file for the model; `ready` spares it the service's confusing status words. */
function describeFile(file: FileObject) {
  return {
    id: file.id,
    filename: file.filename,
    purpose: file.purpose,
    bytes: file.bytes,
    created_at: file.created_at,
    status: file.status,
    ready: file.status === 'success',
  };
}

/**
 * Tools that let a model manage uploaded files through `client`: list, get, read extracted text, delete
 * (needs approval by default), and upload a local file that lies inside `options.root`.
 */
export function fileTools(client: SvcClient, options: FileToolsOptions = {}): Tool[] {
  const { root, maxContentChars = 20_000, fileReadyTimeoutMs = 120_000 } = options;
  const secretFiles = options.secretFiles === false ? [] : (options.secretFiles ?? defaultSecretFilePatterns);
  const { z } = loadZod();
  const fileId = z
    .string()
    .min(1)
    .refine(isSafePathId, pathIdRule)
    .describe('Id of the file, as returned by list_files or upload_file');
  const approval = (name: FileToolName, fallback: boolean) => options.needsApproval?.[name] ?? fallback;
  if (root === undefined && options.only?.includes('upload_file')) {
    throw new ToolDefinitionError({
      toolName: 'upload_file',
      rule: 'options.root is required: the directory uploads may come from',
    });
  }
  const factories: Record<FileToolName, () => Tool> = {
    list_files: () =>
      defineTool({
        name: 'list_files',
        description:
          'List the files uploaded to this account with their ids, names, purposes, sizes and whether they ' +
          'are ready to use. Optionally only files of one purpose.',
        parameters: z.object({
          purpose: z.enum(purposes).optional().describe('Only files uploaded for this purpose'),
        }),
        needsApproval: approval('list_files', false),
        execute: async (args, { signal }) => {
          const list = await client.files.list(compact(args), { signal });
          return { files: list.data.map(describeFile) };
        },
      }),
    get_file: () =>
      defineTool({
        name: 'get_file',
        description:
          'Get one uploaded file by id: name, purpose, size and whether it has finished processing.',
        parameters: z.object({ file_id: fileId }),
        needsApproval: approval('get_file', false),
        execute: async ({ file_id }, { signal }) =>
          describeFile(await client.files.retrieve(file_id, { signal })),
      }),
    read_file_content: () =>
      defineTool({
        name: 'read_file_content',
        description:
          'Read the text the service extracted from an uploaded document (files uploaded with purpose ' +
          `file-extract). Long texts are cut after ${maxContentChars} characters unless max_chars is smaller.`,
        parameters: z.object({
          file_id: fileId,
          max_chars: z.number().int().min(1).optional().describe('Return at most this many characters'),
        }),
        needsApproval: approval('read_file_content', false),
        execute: async ({ file_id, max_chars }, { signal }) => {
          const text = await client.files.content(file_id, { signal });
          const limit = Math.min(max_chars ?? maxContentChars, maxContentChars);
          return truncateToolOutput(text, limit);
        },
      }),
    delete_file: () =>
      defineTool({
        name: 'delete_file',
        description:
          'Delete an uploaded file for good; knowledge bases that use it lose it too. A person may have to ' +
          'approve this first.',
        parameters: z.object({ file_id: fileId }),
        needsApproval: approval('delete_file', true),
        execute: async ({ file_id }, { signal }) => client.files.delete(file_id, { signal }),
      }),
    upload_file: () =>
      defineTool({
        name: 'upload_file',
        description:
          'Upload a local file from the working directory. Purposes: "file-extract" to read a document\'s ' +
          'text, "retrieval-text" or "retrieval-image" to add it to a knowledge base, "storage" for media. ' +
          'Waits until the file is ready and answers its id.',
        parameters: z.object({
          path: z.string().min(1).describe('Path of the file, relative to the working directory'),
          purpose: z.enum(purposes).describe('What the file is for'),
        }),
        needsApproval: approval('upload_file', false),
        timeoutMs: fileReadyTimeoutMs + 60_000,
        execute: async ({ path: requested, purpose }, { signal }) => {
          refuseSecretFile(requested, undefined, secretFiles);
          // Read through the checked descriptor: the path is never opened again after the check.
          const { real, bytes } = await readInsideRoot(root!, requested, {
            allowHardLinks: options.allowHardLinks,
          });
          refuseSecretFile(requested, { root: await realpath(root!), real }, secretFiles);
          const uploaded = await client.files.upload(
            { file: bytes, purpose, filename: path.basename(requested) },
            { signal },
          );
          const ready = await client.files.waitUntilReady(uploaded.id, {
            timeout: fileReadyTimeoutMs,
            signal,
          });
          return describeFile(ready);
        },
      }),
  };
  const selection: ToolSelection<FileToolName> =
    root === undefined ? { ...options, exclude: [...(options.exclude ?? []), 'upload_file'] } : options;
  return selectTools('file', factories, selection);
}
