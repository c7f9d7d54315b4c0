/**
 * Retrieval-augmented answers over a knowledge base: upload files, wait until they are parsed, add them to
 * a store, then let the service's retrieval tool find the passages.
 * Run: npx tsx examples/rag.ts
 */
import { fileURLToPath } from 'node:url';
import { Agent, hostedTools } from '../src/index.js';
import { connect } from './support/connect.js';

const { client, close } = await connect();

// 1. Upload the documents; the service parses them in the background ("processed" -> "success").
const paths = ['returns-policy.md', 'shipping.md'].map((name) =>
  fileURLToPath(new URL(`./data/${name}`, import.meta.url)),
);
const files = await Promise.all(
  paths.map((file) => client.files.upload({ file, purpose: 'retrieval-text' })),
);
await Promise.all(files.map((file) => client.files.waitUntilReady(file.id)));

// 2. Put them in a knowledge base.
const store = await client.vectorStores.create({ name: `shop_docs_${Date.now()}` });
await client.vectorStores.files.create(store.id, { files: files.map((file) => ({ file_id: file.id })) });
console.log(`knowledge base ${store.name} (${store.id}) holds ${files.map((f) => f.filename).join(', ')}`);

// 3. Ask: the service searches the store and answers from the passages it finds.
const agent = new Agent({
  client,
  model: 'svc-3.5-flash-2603',
  instructions: 'Answer from the shop documents and name the document you used.',
  tools: [
    hostedTools.retrieval({
      name: 'shop_docs',
      description: 'The shop returns policy and shipping conditions.',
      vectorStoreId: store.id,
    }),
  ],
});
const question = 'How many days do I have to return an item for a refund?';
const result = await agent.run(question);
console.log(`Q: ${question}\nA: ${result.text}`);
await close();
