import type { SvcClient } from '../../api/svc-client.js';
import { fileTools } from '../../tools/built-in/file-tools.js';
import { knowledgeBaseTools } from '../../tools/built-in/knowledge-base-tools.js';
import type { AnyTool } from '../../tools/tool.js';
import { demoTools } from '../demo-tools/demo-tools.js';

/** The instructions of the chat agent. */
export const chatInstructions =
  'You are the svc-agents demo assistant running in a terminal. Use the tools for weather, arithmetic, ' +
  'the current time, knowledge bases and files instead of guessing, and answer briefly in plain text. ' +
  "Answer questions about the user's documents from search_knowledge_base and name the files you used.";

/**
 * Demo tools plus the knowledge-base and file tools (file access limited to `root`). `upload_file` reads a
 * local file and sends it out, so a person approves it: a document or page the agent reads must not be
 * able to make it upload a file by itself.
 */
export function chatTools(client: SvcClient, root: string): AnyTool[] {
  const files = fileTools(client, { root, needsApproval: { upload_file: true } });
  return [...demoTools(), ...knowledgeBaseTools(client), ...files];
}
