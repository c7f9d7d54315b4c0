import { createHash } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';
import { ChatRequestError } from './web-error.js';

/**
 * Who a request acts for, as the chat handler's `authorize` tells it. Every session and run is bound to
 * its owner when created; another owner's ids answer 404, as if they did not exist.
 */
export interface ChatOwner {
  /** The app's stable id of the user (any string; it is hashed into the stored ids, never shown). */
  userId: string;
}

/** What `authorize` may answer: admit as nobody in particular (`true`), refuse (`false`, a Response), or an owner. */
export type AuthorizeVerdict = boolean | Response | ChatOwner;

// Client ids are `[\w.-]`, so an id holding `~` can only be a namespaced one: an anonymous caller's ids
// never collide with an owner's, and one owner's never with another's (a 128-bit digest of the userId).
const NAMESPACE = /^u~[0-9a-f]{32}~/;

/** The prefix of an owner's stored session ids; '' for the anonymous owner (no `authorize`, or `true`). */
function namespaceOf(owner: ChatOwner | undefined): string {
  if (!owner) return '';
  return `u~${createHash('sha256').update(owner.userId).digest('hex').slice(0, 32)}~`;
}

/** The stored id of `owner`'s session `sessionId` (as the client names it). */
export function ownedSessionId(owner: ChatOwner | undefined, sessionId: string): string {
  return `${namespaceOf(owner)}${sessionId}`;
}

/** The owner namespace a stored session id lies in ('' for the anonymous owner's). */
export function namespaceOfSession(storedId: string): string {
  return NAMESPACE.exec(storedId)?.[0] ?? '';
}

/** The client's name of a stored session id, or `undefined` when the session is not `owner`'s. */
export function clientSessionId(owner: ChatOwner | undefined, storedId: string): string | undefined {
  const prefix = namespaceOf(owner);
  if (prefix === '') return NAMESPACE.test(storedId) ? undefined : storedId;
  return storedId.startsWith(prefix) ? storedId.slice(prefix.length) : undefined;
}

/**
 * Reads `authorize`'s verdict: the owner (undefined: anonymous), or the Response to answer. A malformed
 * owner is the app's mistake: a 500 naming the rule, never a request let through as anonymous.
 */
export function ownerOfVerdict(verdict: unknown): { owner: ChatOwner | undefined } | Response {
  if (verdict instanceof Response) return verdict;
  if (verdict === true) return { owner: undefined };
  if (verdict === false || verdict === undefined || verdict === null)
    throw new ChatRequestError({ status: 401, message: 'authorization: this request is not allowed' });
  const userId = (verdict as { userId?: unknown }).userId;
  if (typeof userId !== 'string' || userId === '') {
    throw new ConfigurationError({
      field: 'authorize',
      rule: 'must answer true, false, a Response or { userId: non-empty string }',
    });
  }
  return { owner: { userId } };
}
