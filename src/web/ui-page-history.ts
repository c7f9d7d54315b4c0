import type { ChatStateStore } from './chat-state.js';
import { toUIMessages } from './to-ui-messages.js';
import type { PageMessage } from './ui-chat-request.js';
import type { UIMessage } from './ui-message.js';

/**
 * Makes the session follow the page when the page cut its history short: an edit of an older message
 * (`sendMessage({ text, messageId })`, or `setMessages` then `sendMessage`) or `regenerate({ messageId })`
 * of an older answer posts fewer messages than the session holds. `kept` is how many of the page's
 * messages precede what it asks now (the new message, or the answer to give again); the session's items
 * from the start of its UI message `kept` on are removed. Only when the page's last kept message is the
 * session's (same id, or a user message with the same text): a page that posts only its last message
 * (`prepareSendMessagesRequest`) never empties a history. Answers how many items were removed.
 */
export async function followPageHistory(
  store: ChatStateStore,
  chatId: string,
  page: readonly PageMessage[],
  kept: number,
): Promise<number> {
  const items = await store.getItems(chatId);
  const server = toUIMessages(items);
  if (kept >= server.length || kept < 1) return 0;
  if (!sameMessage(page[kept - 1], server[kept - 1]!)) return 0;
  const from = Number(/^msg-(\d+)$/.exec(server[kept]!.id)?.[1]);
  if (!Number.isInteger(from) || from >= items.length) return 0;
  for (let count = items.length; count > from; count--) await store.popItem(chatId);
  return items.length - from;
}

function sameMessage(page: PageMessage | undefined, server: UIMessage): boolean {
  if (!page || page.role !== server.role) return false;
  if (page.id === server.id) return true;
  const text = server.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  return server.role === 'user' && text !== '' && page.text === text;
}
