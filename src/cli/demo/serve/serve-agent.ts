import { z } from 'zod';
import { Agent } from '../../../agent/agent.js';
import type { ModelSettings } from '../../../agent/model-settings.js';
import type { SvcClient } from '../../../api/svc-client.js';
import { defineTool } from '../../../tools/define-tool.js';
import { hostedTools } from '../../../tools/hosted-tools.js';
import type { AnyTool } from '../../../tools/tool.js';
import type { ChatOwner } from '../../../web/chat-owner.js';

/** What a `--agent` module's default export may be given to build the agent of a session. */
export interface ServeAgentContext {
  client: SvcClient;
  sessionId: string;
  /** The session's knowledge base once a file was uploaded in the page. */
  knowledgeBaseId: string | undefined;
  /** True when the conversation holds an image attached in the page: answer with a vision model. */
  vision: boolean;
  /** Who the run acts for (`authorize`'s answer); `undefined` for the page's one anonymous user. */
  owner?: ChatOwner | undefined;
}

/** A `--agent` module's default export: an agent, or a function building one per session. */
export type ServeAgentFactory = (
  context: ServeAgentContext,
) => Agent<unknown, unknown> | Promise<Agent<unknown, unknown>>;

/** A demo action with a side effect, so the page shows an approval (also in the CLI's demo agent). */
export const scheduleReminder = defineTool({
  name: 'schedule_reminder',
  description: 'Schedule a reminder for the user (asks the user to approve first).',
  parameters: z.object({
    text: z.string().describe('What to remind the user of'),
    at: z.string().optional().describe('When, e.g. tomorrow 9:00'),
  }),
  needsApproval: true,
  execute: ({ text, at }) => ({ scheduled: true, text, at: at ?? 'tomorrow 9:00' }),
});

/**
 * The agent of the served page: the given tools, the reminder tool, the session's knowledge base, and a
 * cited search of `knowledgeBases` (names or ids) when given.
 */
export function createServeAgent(options: {
  model: string;
  tools: AnyTool[];
  instructions: string;
  knowledgeBases?: readonly string[] | undefined;
  /** Model of a conversation with an attached image. @default 'svc-1o-turbo-vision' */
  visionModel?: string;
  /** Request fields of every turn, e.g. audio output. */
  modelSettings?: ModelSettings;
}): ServeAgentFactory {
  const { knowledgeBases } = options;
  return ({ client, knowledgeBaseId, vision }) =>
    new Agent({
      client,
      model: vision ? (options.visionModel ?? 'svc-1o-turbo-vision') : options.model,
      ...(options.modelSettings && !vision ? { modelSettings: options.modelSettings } : {}),
      instructions: options.instructions,
      ...(knowledgeBases ? { knowledgeBases } : {}),
      tools: [...options.tools, scheduleReminder, ...uploadedFilesTools(knowledgeBaseId)],
    });
}

/** The session's uploaded files as one more knowledge base the model searches, when there are any. */
export function uploadedFilesTools(knowledgeBaseId: string | undefined): AnyTool[] {
  if (!knowledgeBaseId) return [];
  return [
    hostedTools.retrieval({
      name: 'uploaded_files',
      description: 'The files the user uploaded in this chat; consult them to answer about their content.',
      vectorStoreId: knowledgeBaseId,
    }),
  ];
}
