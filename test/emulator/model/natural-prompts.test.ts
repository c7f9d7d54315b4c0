import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../../../src/api/types/chat.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { Emulator } from '../../../src/emulator/types.js';
import { callEmulator } from '../../helpers/call-emulator.js';
import { tinyPng } from '../../helpers/media-bytes.js';
import { type ExpectedCall, NATURAL_PROMPTS, type NaturalPrompt } from './natural-prompts.js';

/** The verdict on one answer: undefined when it passes, else why not. */
function judge(
  case_: NaturalPrompt,
  message: ChatCompletion['choices'][number]['message'],
): string | undefined {
  const text = message.content ?? '';
  const calls = (message.tool_calls ?? []).map((c) => ({
    name: c.function.name ?? '',
    args: JSON.parse(c.function.arguments ?? '{}') as Record<string, unknown>,
  }));
  // Never the canned echo, never the prompt said back.
  if (/you said/i.test(text) || (case_.prompt.length > 12 && text.includes(case_.prompt)))
    return `echo: ${text}`;
  if (case_.calls) {
    if (calls.length !== case_.calls.length) return `calls ${JSON.stringify(calls)}`;
    const left = [...calls];
    for (const expected of case_.calls) {
      const at = left.findIndex((call) => matches(call, expected));
      if (at < 0) return `no call like ${JSON.stringify(expected)} in ${JSON.stringify(calls)}`;
      left.splice(at, 1);
    }
    return undefined;
  }
  if (calls.length > 0) return `unexpected calls ${JSON.stringify(calls)}`;
  if (case_.json) {
    try {
      JSON.parse(text);
    } catch {
      return `not JSON: ${text}`;
    }
  }
  if (text.trim() === '') return 'empty answer';
  if (case_.answer && !case_.answer.test(text)) return `answer ${JSON.stringify(text)} !~ ${case_.answer}`;
  return undefined;
}

function matches(call: { name: string; args: Record<string, unknown> }, expected: ExpectedCall): boolean {
  if (call.name !== expected.name) return false;
  return Object.entries(expected.args).every(([key, want]) => {
    const got = call.args[key];
    if (typeof want !== 'string') return got === want;
    if (typeof got !== 'string') return false;
    return got.toLowerCase().includes(want.toLowerCase()) && got.length <= want.length + 8;
  });
}

describe('the demo model on forty natural prompts', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(() => emu.close());

  it('should answer them without misleading (pass rate reported)', async () => {
    const failures: string[] = [];
    for (const case_ of NATURAL_PROMPTS) {
      const content = case_.image
        ? [
            { type: 'text', text: case_.prompt },
            {
              type: 'image_url',
              image_url: { url: `data:image/png;base64,${tinyPng().toString('base64')}` },
            },
          ]
        : case_.prompt;
      const res = await callEmulator(emu.baseURL, emu.apiKey, 'POST', '/v1/chat/completions', {
        model: case_.image ? 'svc-1o-turbo-vision' : 'svc-3.5-flash',
        messages: [{ role: 'user', content }],
        ...(case_.tools ? { tools: case_.tools } : {}),
        ...(case_.json ? { response_format: { type: 'json_object' } } : {}),
      });
      expect(res.status, res.text).toBe(200);
      const verdict = judge(case_, res.json<ChatCompletion>().choices[0]!.message);
      if (verdict) failures.push(`${case_.prompt}\n    ${verdict}`);
    }
    const passed = NATURAL_PROMPTS.length - failures.length;
    console.log(
      `demo model: ${passed}/${NATURAL_PROMPTS.length} natural prompts pass\n  ${failures.join('\n  ')}`,
    );
    // 37 of 40 when the prompts were first judged against this model; the three misses are arithmetic
    // without a calculator tool, where the demo says what it needs instead of computing.
    expect(passed, failures.join('\n')).toBeGreaterThanOrEqual(37);
  });
});
