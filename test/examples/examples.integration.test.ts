import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { serviceAvailable } from '../helpers/infra-services.js';
import { type ProcessResult, runNodeScript } from '../helpers/run-cli-process.js';

const examplesDir = fileURLToPath(new URL('../../examples/', import.meta.url));
const TIMEOUT = 90_000;
const redisUp = await serviceAvailable('redis');

/** What each example must print (stdout) and the files it must leave in its working directory. */
const expectations: Record<
  string,
  { stdout: RegExp[]; files?: Record<string, string>; needsRedis?: boolean }
> = {
  'chatbot.ts': {
    stdout: [
      /you: What is the weather in Paris\?\nbot: .*Paris.*14/,
      /you: Thanks!.*\nbot: .+/,
      /\(6 messages in the conversation\)/,
    ],
  },
  'streaming-ui.ts': {
    stdout: [
      /— step 1 —/,
      /→ get_weather\(\{"city":"Paris"\}\)/,
      /← \{"city":"Paris"/,
      /— step 2 —/,
      /\[stop, \d+ tokens\]/,
      /final answer: .*light rain/,
    ],
  },
  'backend-workflow.ts': {
    // A plausible triage: each ticket's own category and priority, a summary naming the customer.
    stdout: [
      /'T-1'\s*│ 'billing'\s*│ 'urgent'\s*│ 'Ada \(enterprise\): We were charged twice/,
      /'T-2'\s*│ 'bug'\s*│ 'high'\s*│ 'Linus \(free\): The export button crashes/,
      /'T-3'\s*│ 'feature_request'\s*│ 'low'\s*│ 'Grace \(pro\): Please add dark mode/,
      /'T-4'\s*│ 'account'\s*│ 'urgent'/,
      /4 tickets triaged; lookup_customer ran 4 times/,
    ],
  },
  'rag.ts': {
    // Two knowledge bases found by name, each answer naming the file it comes from.
    stdout: [
      /created knowledge base shop_returns with returns-policy\.md/,
      /created knowledge base shop_shipping with shipping\.md/,
      /A: You can return any item within 30 days .*\(source: returns-policy\.md in shop_returns\)/,
      /sources: returns-policy\.md \(file-/,
      /A: Standard shipping takes 3 to 5 business days.*\(source: shipping\.md in shop_shipping\)/,
    ],
  },
  'human-approval.ts': {
    stdout: [
      /reviewer approves refund_order \{"orderId":1001,"amount":49\.9\}\nagent: .*refunded 49\.9/,
      /reviewer rejects refund_order \{"orderId":1002,"amount":900\}\nagent: .*rejected.*manager/,
    ],
  },
  'audio-chat.ts': {
    stdout: [/transcript: .+/, /wrote \.artifacts\/examples\/answer\.wav \(\d+ bytes\)/],
    files: { '.artifacts/examples/answer.wav': 'RIFF' },
  },
  'telemetry-console.ts': {
    stdout: [
      /name: 'chat svc-3\.5-flash'/,
      /name: 'execute_tool get_weather'/,
      /'gen_ai\.tool\.call\.id': 'call_/,
      /name: 'invoke_agent weather-bot'/,
      /answer: .*light rain/,
    ],
  },
  'mcp-tools.ts': {
    stdout: [
      /MCP tools: search_notes, erase_memo \(approval\)/,
      /→ search_notes\(\{"query":.*\}\)\n← n1: Refunds/,
      /agent: .*30 days/,
      /erase_memo waits for approval: erase_memo\nagent: .*rejected.*audits/,
    ],
  },
  'multi-agent.ts': {
    stdout: [
      /customer: I was charged twice.*\n {2}triage → billing\n {2}refund_payment\(.*\)\nbilling: .*refunded true/,
      /customer: Please check the support notes.*\n {2}triage → support\n {2}search_notes\(.*\)\nsupport: .*n3: Password resets/,
    ],
  },
  'durable-workflow.ts': {
    needsRedis: true,
    stdout: [
      /run \S+ is interrupted: refund_order \{"orderId":1001\} waits\nworker \d+ crashed \(SIGKILL\)/,
      /approved; run \S+ is completed: .*refund_order \(1001\): order id 1001, refunded true/,
      /session customer-7 holds 4 messages/,
      /resumed and completed; the model was told: "Tool write_report was interrupted/,
    ],
  },
  'image.ts': {
    stdout: [/wrote \.artifacts\/examples\/lighthouse\.png \(seed 42\)/],
    files: { '.artifacts/examples/lighthouse.png': '\x89PNG' },
  },
  'voice-clone.ts': {
    stdout: [
      /cloned voice (voice-\S+)/,
      /wrote \.artifacts\/examples\/voice-preview\.wav/,
      /voice voice-\S+ from file file-\S+/,
    ],
    files: {
      '.artifacts/examples/voice-preview.wav': 'RIFF',
      '.artifacts/examples/sample.wav': 'RIFF',
    },
  },
};

describe('examples', () => {
  let cwd: string;
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'svc-examples-'));
  });
  afterAll(() => rm(cwd, { recursive: true, force: true }));

  it('should have an expectation for every example file', async () => {
    const files = (await readdir(examplesDir)).filter((name) => name.endsWith('.ts'));
    expect(files.sort()).toEqual(Object.keys(expectations).sort());
  });

  describe.each(Object.entries(expectations))('%s', (name, expected) => {
    it.skipIf(expected.needsRedis && !redisUp)(
      'should run against the in-process emulator, print what it promises and exit 0',
      async () => {
        const result: ProcessResult = await runNodeScript(join(examplesDir, name), [], {
          cwd,
          timeoutMs: TIMEOUT,
        });
        expect(result.stderr).toMatch(/using the local emulator at http:\/\/127\.0\.0\.1:\d+/);
        expect(result.code, result.stderr).toBe(0);
        for (const pattern of expected.stdout) expect(result.stdout).toMatch(pattern);
        for (const [file, magic] of Object.entries(expected.files ?? {})) {
          const bytes = await readFile(join(cwd, file));
          expect(bytes.subarray(0, magic.length).toString('latin1')).toBe(magic);
        }
      },
      TIMEOUT,
    );
  });

  describe('when SVC_BASE_URL and SVC_API_KEY are set', () => {
    it(
      'should talk to that service instead of starting an emulator',
      async () => {
        const service = await startEmulator({ port: 0 });
        try {
          const env = { SVC_BASE_URL: service.baseURL, SVC_API_KEY: service.apiKey };
          const result = await runNodeScript(join(examplesDir, 'chatbot.ts'), [], {
            cwd,
            env,
            timeoutMs: TIMEOUT,
          });
          expect(result.code, result.stderr).toBe(0);
          expect(result.stderr).not.toContain('local emulator');
          expect(
            service.requests().filter((r) => r.path === '/v1/chat/completions').length,
          ).toBeGreaterThanOrEqual(3);
        } finally {
          await service.close();
        }
      },
      TIMEOUT,
    );
  });
});
