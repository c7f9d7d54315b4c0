import type { SvcClient } from '../../api/svc-client.js';
import { hostedTools } from '../../tools/hosted-tools.js';
import type { AnyTool } from '../../tools/tool.js';

/** Prompts of the scripted demo run by `svc-agents chat` when stdin is empty and not a terminal. */
export const demoPrompts: readonly string[] = [
  "What's the weather in Paris, and how much is 17% of 250?",
  'Compare the weather in London and Tokyo',
];

/** Name of the knowledge base the demo creates (once) for its last question. */
export const DEMO_STORE_NAME = 'svc_agents_demo_handbook';

const HANDBOOK = [
  '# Returns policy',
  '',
  'You can return any item within 30 days of delivery for a full refund. Items must be unused and in',
  'their original packaging. Refunds reach the original payment method within 5 business days.',
  '',
  '# Shipping',
  '',
  'Orders ship within 2 business days. Standard delivery takes 3 to 5 days; express takes 1 day.',
].join('\n');

/** The demo conversation: its prompts and the extra tool (the knowledge base) it needs. */
export interface DemoConversation {
  prompts: string[];
  tools: AnyTool[];
}

/**
 * Prepares the full demo on the embedded emulator: a scratch file the agent deletes (a tool that needs
 * approval) and a small handbook knowledge base it answers from. On a real service only the prompts that
 * create nothing are played.
 */
export async function prepareDemo(client: SvcClient, emulated: boolean): Promise<DemoConversation> {
  if (!emulated) return { prompts: [...demoPrompts], tools: [] };
  const scratch = await client.files.upload({
    file: new TextEncoder().encode('Notes to throw away.\n'),
    filename: 'scratch-notes.txt',
    purpose: 'file-extract',
  });
  let store = (await client.vectorStores.list({ limit: 100 })).data.find((s) => s.name === DEMO_STORE_NAME);
  if (!store) {
    const created = await client.vectorStores.create({ name: DEMO_STORE_NAME });
    const handbook = await client.files.upload({
      file: new TextEncoder().encode(HANDBOOK),
      filename: 'handbook.md',
      purpose: 'retrieval-text',
    });
    await client.files.waitUntilReady(handbook.id);
    await client.vectorStores.files.create(created.id, { files: [{ file_id: handbook.id }] });
    store = await client.vectorStores.retrieve(created.id);
  }
  return {
    prompts: [
      ...demoPrompts,
      `Delete the file ${scratch.id} (scratch-notes.txt)`,
      'How many days do I have to return an item?',
    ],
    tools: [
      hostedTools.retrieval({
        name: 'handbook',
        description: 'The shop handbook: returns policy and shipping times.',
        vectorStoreId: store.id,
      }),
    ],
  };
}
