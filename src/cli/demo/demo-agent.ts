import { Agent } from '../../agent/agent.js';
import type { PriceTable } from '../../agent/cost/price-table.js';
import type { ModelSettings } from '../../agent/model-settings.js';
import type { SvcClient } from '../../api/svc-client.js';
import type { Channel } from '../../api/types/request-options.js';
import { fileTools } from '../../tools/built-in/file-tools.js';
import { knowledgeBaseTools } from '../../tools/built-in/knowledge-base-tools.js';
import type { AnyTool, Tool } from '../../tools/tool.js';
import { type ServeAgentFactory, scheduleReminder, uploadedFilesTools } from './serve/serve-agent.js';
import { demoTools } from './tools/demo-tools.js';

// The one demo agent of the CLI: `chat`, `serve` and `worker` (its "chat" agent) all build it here, so a
// question gets the same tools and instructions whichever command answers it.

/** The instructions of the demo agent. */
export const demoInstructions =
  'You are the svc-agents demo assistant. Use the tools for weather, arithmetic, the current time, ' +
  'reminders, knowledge bases and files instead of guessing, and answer briefly in plain text. ' +
  "Answer questions about the user's documents from search_knowledge_base and name the files you used.";

/** Options of {@link createDemoAgent}. */
export interface DemoAgentOptions {
  client: SvcClient;
  model: string;
  /** The folder the file tools may upload from. */
  root: string;
  /** Knowledge bases searched with citations (checked by the caller). */
  knowledgeBases?: readonly string[] | undefined;
  prices?: PriceTable | undefined;
  channel?: Channel | undefined;
  modelSettings?: ModelSettings | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: a zod schema of any output
  output?: any;
  /** Tools of this session only (a web chat's uploaded files). */
  extraTools?: readonly AnyTool[];
  /** Instructions instead of the demo's (a fork in `svc-agents inspect`). @default demoInstructions */
  instructions?: string | undefined;
}

/**
 * The demo agent's tools: demo tools, the reminder (needs approval), knowledge-base and file tools.
 * `upload_file` reads a local file and sends it out, so a person approves it: a document or page the
 * agent reads must not be able to make it upload a file by itself.
 */
export function demoAgentTools(client: SvcClient, root: string): AnyTool[] {
  const files = fileTools(client, { root, needsApproval: { upload_file: true } });
  return [...demoTools(), scheduleReminder, ...knowledgeBaseTools(client), ...files];
}

/** The names of the function tools that ask before they run (`needsApproval` other than false). */
export function approvalGatedTools(tools: readonly AnyTool[]): string[] {
  return tools
    .filter((tool): tool is Tool => tool.kind === 'function' && tool.needsApproval !== false)
    .map((tool) => tool.name);
}

/** The demo agent. */
export function createDemoAgent(options: DemoAgentOptions): Agent<unknown, unknown> {
  const { client, model, knowledgeBases, prices, channel, modelSettings, output } = options;
  return new Agent<unknown, unknown>({
    client,
    model,
    instructions: options.instructions ?? demoInstructions,
    tools: [...demoAgentTools(client, options.root), ...(options.extraTools ?? [])],
    ...(prices?.[model] ? { prices } : {}),
    ...(knowledgeBases ? { knowledgeBases } : {}),
    ...(channel ? { channel } : {}),
    ...(modelSettings ? { modelSettings } : {}),
    ...(output ? { output } : {}),
  });
}

/**
 * The demo agent per web chat session (`serve`, and `worker` for `serve --queue`): a conversation with an
 * attached image goes to `visionModel`, and a session's uploaded files are one more knowledge base.
 */
export function demoServeAgent(
  options: Omit<DemoAgentOptions, 'client' | 'extraTools'> & { visionModel: string },
): ServeAgentFactory {
  return ({ client, knowledgeBaseId, vision }) =>
    createDemoAgent({
      ...options,
      client,
      model: vision ? options.visionModel : options.model,
      modelSettings: vision ? undefined : options.modelSettings,
      extraTools: uploadedFilesTools(knowledgeBaseId),
    });
}
