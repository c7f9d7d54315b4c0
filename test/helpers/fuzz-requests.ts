import type { RawRequest } from './send-raw-request.js';

/** A small seeded generator (mulberry32), so a failing fuzz case can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'FOO'];
const SEGMENTS = [
  '',
  '/',
  '//',
  '%',
  '%zz',
  '%E0%A4%A',
  '[',
  ']',
  '..',
  '.',
  'a b',
  '?',
  '#',
  '%00',
  'ünï',
  '\u0001',
];
const BODIES = [
  '',
  '{',
  'null',
  '[]',
  '[null]',
  '{"messages":[null]}',
  '{"id":"x","messages":[{"role":"user","parts":[null]}]}',
  '{"message":42}',
  '{"message":"hi","sessionId":{"a":1}}',
  '"just a string"',
  '\u0000\u0001\u00ff',
  '{"a":'.repeat(2_000),
  `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
  '{"decisions":[null,{"toolCallId":1}]}',
  '{"__proto__":{"polluted":true}}',
];
const HEADER_VALUES = [
  '',
  'null',
  'x:99999',
  'attacker.example',
  '[::1',
  'a'.repeat(300),
  'text/plain',
  '*/*',
];

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/**
 * One random request for a server: a random method, a path made of `paths` and odd segments (bad
 * percent-encoding, `//`, brackets), random headers and a random or broken body. The Host stays the
 * server's own unless `foreignHost` is picked, so most cases reach the parsing behind the Host check.
 */
export function randomRequest(random: () => number, paths: readonly string[]): RawRequest {
  const method = pick(random, METHODS);
  let target = pick(random, paths);
  const extra = Math.floor(random() * 3);
  for (let i = 0; i < extra; i++) target += encodeURI(pick(random, SEGMENTS)).replaceAll('%25', '%');
  if (random() < 0.1) target = `/${target}`;
  const headers: Record<string, string> = {};
  if (random() < 0.5)
    headers['content-type'] = pick(random, ['application/json', 'text/plain', 'multipart/form-data', 'x/y']);
  if (random() < 0.15) headers.host = pick(random, HEADER_VALUES);
  if (random() < 0.2)
    headers.origin = pick(random, ['null', 'http://attacker.example', 'http://127.0.0.1', '']);
  if (random() < 0.2) headers['last-event-id'] = pick(random, ['-1', 'abc', '1e999', '']);
  if (random() < 0.1) headers['mcp-session-id'] = pick(random, HEADER_VALUES);
  if (random() < 0.1) headers.authorization = pick(random, ['Bearer', 'Bearer x', 'Basic ::', '']);
  const body = method === 'GET' || method === 'HEAD' ? undefined : pick(random, BODIES);
  return { method, target, headers, ...(body === undefined ? {} : { body }) };
}
