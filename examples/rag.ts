/**
 * Retrieval-augmented answers over two knowledge bases, with citations: each document goes into a
 * knowledge base of its own (created once, found by name after that), then an agent searches both by name
 * and names the files its answers come from (`source` events while it runs, `result.sources` after).
 * Run: npx tsx examples/rag.ts
 */
import { fileURLToPath } from 'node:url';
import { Agent, type SvcClient } from '../src/index.js';
import { connect } from './support/connect.js';

const { client, close } = await connect();

/** The knowledge base `name`, created and filled with `document` unless the account already has it. */
async function knowledgeBase(client: SvcClient, name: string, document: string) {
  for await (const store of client.vectorStores.list({ limit: 100 })) if (store.name === name) return store;
  const file = await client.files.upload({
    file: fileURLToPath(new URL(`./data/${document}`, import.meta.url)),
    purpose: 'retrieval-text',
  });
  // The service parses uploads in the background ("processed" -> "success").
  await client.files.waitUntilReady(file.id);
  const store = await client.vectorStores.create({ name });
  await client.vectorStores.files.create(store.id, { files: [{ file_id: file.id }] });
  console.log(`created knowledge base ${name} with ${document}`);
  return store;
}

await knowledgeBase(client, 'shop_returns', 'returns-policy.md');
await knowledgeBase(client, 'shop_shipping', 'shipping.md');

// The knowledge bases are chosen by name, here for the agent; a run can choose its own (a tenant's).
const agent = new Agent({
  client,
  model: 'svc-3.5-flash-2603',
  instructions: 'Answer from the shop documents and name the files you used.',
  knowledgeBases: ['shop_returns', 'shop_shipping'],
});

for (const question of [
  'How many days do I have to return an item for a refund?',
  'How long does standard shipping take?',
]) {
  const stream = agent.stream(question);
  for await (const event of stream) {
    if (event.type === 'source') console.log(`  retrieved ${event.title}`);
  }
  const result = await stream.result;
  console.log(`Q: ${question}\nA: ${result.text}`);
  console.log(
    `sources: ${result.sources.map((source) => `${source.title} (${source.fileId})`).join(', ')}\n`,
  );
}
await close();
