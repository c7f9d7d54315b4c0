import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient } from '../../src/api/svc-client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { hasScript, type PtySession, startPtySession } from '../helpers/start-pty-session.js';

const TIMEOUT = 90_000;

// `script` (util-linux) gives the CLI a real terminal; without it there is no way to drive the REPL.
describe.skipIf(!hasScript)('svc-agents chat on a terminal', () => {
  let emu: Emulator;
  let env: Record<string, string>;
  let session: PtySession | undefined;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    env = { SVC_BASE_URL: emu.baseURL, SVC_API_KEY: emu.apiKey };
  });
  afterAll(async () => {
    session?.kill();
    await emu.close();
  });

  describe('when the user chats, switches model, resets and exits', () => {
    it(
      'should stream answers with tool calls and honour /model, /reset and /exit',
      async () => {
        const pty = startPtySession(['chat'], env);
        session = pty;
        await pty.waitFor(/you › /);

        let mark = pty.output().length;
        pty.type('What is the weather in Paris?\r');
        await pty.waitFor(/assistant › .*light rain/, mark);
        const turn = pty.output().slice(mark);
        expect(turn).toContain('thinking');
        expect(turn).toContain('→ get_weather({"city":"Paris"})');
        expect(turn).toContain('← get_weather:');
        // The spinner's first frame is drawn while waiting for the first token.
        expect(turn).toContain('⠋ thinking');

        mark = pty.output().length;
        pty.type('/model svc-3.7-flash\r');
        await pty.waitFor(/model set to svc-3\.7-flash/, mark);
        mark = pty.output().length;
        pty.type('Calculate 17*23\r');
        await pty.waitFor(/assistant › .*391/, mark);
        const lastTwo = emu.requests().slice(-2);
        expect(lastTwo.map((r) => (r.body as { model: string }).model)).toEqual([
          'svc-3.7-flash',
          'svc-3.7-flash',
        ]);

        mark = pty.output().length;
        pty.type('/reset\r');
        await pty.waitFor(/conversation cleared/, mark);
        mark = pty.output().length;
        pty.type('What time is it?\r');
        await pty.waitFor(/assistant › .*The current time/, mark);
        const afterReset = emu.requests().at(-1)?.body as { messages: Array<{ role: string }> };
        expect(afterReset.messages.filter((m) => m.role === 'user')).toHaveLength(1);

        pty.type('/exit\r');
        expect(await pty.exited).toBe(0);
      },
      TIMEOUT,
    );
  });

  describe('when a tool needs approval', () => {
    it(
      'should ask the user and tell the model when the user declines',
      async () => {
        emu.reset();
        const pty = startPtySession(['chat'], env);
        session = pty;
        await pty.waitFor(/you › /);
        const mark = pty.output().length;
        pty.type("Please delete 'abc'\r");
        await pty.waitFor(/allow delete_file\(.*\)\? \[y\/N\]/, mark);
        pty.type('n\r');
        await pty.waitFor(/assistant › /, mark);
        const last = emu.requests().at(-1)?.body as { messages: Array<{ role: string; content: string }> };
        const toolMessages = last.messages.filter((m) => m.role === 'tool');
        expect(toolMessages.some((m) => m.content.includes('declined'))).toBe(true);
        pty.type('\x04'); // Ctrl-D leaves too
        expect(await pty.exited).toBe(0);
      },
      TIMEOUT,
    );
  });

  describe('when colours are allowed', () => {
    it(
      'should dim the reasoning',
      async () => {
        const pty = startPtySession(['chat'], { ...env, NO_COLOR: undefined });
        session = pty;
        await pty.waitFor(/you › /);
        const mark = pty.output().length;
        pty.type('Tell me about the roadmap\r');
        await pty.waitFor(/assistant › .*demo model/, mark);
        expect(pty.output().slice(mark)).toMatch(/\x1b\[2m {2}thinking: \x1b\[22m\x1b\[2mThe user wrote/);
        pty.type('\x03'); // Ctrl-C at the prompt leaves
        expect(await pty.exited).toBe(0);
      },
      TIMEOUT,
    );
  });

  describe('when the user presses Ctrl-C while an answer is on its way', () => {
    it(
      'should cancel that answer and keep the chat open',
      async () => {
        emu.setFaults([{ latencyMs: 10_000, path: '/chat/completions', times: 1 }]);
        const pty = startPtySession(['chat'], env);
        session = pty;
        await pty.waitFor(/you › /);
        let mark = pty.output().length;
        const before = emu.requests().length;
        pty.type('Hello there\r');
        await pty.waitFor(/⠋ thinking/, mark);
        // Press Ctrl-C only once the request is held by the emulator's 10 s latency.
        await expect.poll(() => emu.requests().length, { timeout: 20_000 }).toBe(before + 1);
        pty.type('\x03');
        await pty.waitFor(/cancelled \(\/retry to try again\)\r?\n.*you › /s, mark);
        mark = pty.output().length;
        pty.type('Tell me about the roadmap again\r');
        // Answered at once: the cancelled request consumed the slow fault.
        await pty.waitFor(/assistant › .*demo model/, mark, 8_000);
        pty.type('/exit\r');
        expect(await pty.exited).toBe(0);
      },
      TIMEOUT,
    );
  });

  describe('when files are added to a knowledge base on a terminal', () => {
    it(
      'should draw a progress bar up to the last file',
      async () => {
        emu.setFaults([]);
        const store = await fetch(`${emu.baseURL}/v1/vector_stores`, {
          method: 'POST',
          headers: { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'pty_docs' }),
        });
        expect(store.status).toBe(200);
        const readme = fileURLToPath(new URL('../../README.md', import.meta.url));
        const guide = fileURLToPath(new URL('../../docs/cli.md', import.meta.url));
        const pty = startPtySession(['kb', 'add', 'pty_docs', readme, guide], env);
        session = pty;
        expect(await pty.exited).toBe(0);
        expect(pty.output()).toMatch(/uploading \[█{24}\] 4\/4 added to pty_docs/);
        expect(pty.output()).toContain('2 file(s) added to pty_docs');
      },
      TIMEOUT,
    );
  });

  describe('when the user approves a destructive tool', () => {
    it(
      'should run it and then answer',
      async () => {
        emu.setFaults([]);
        const client = new SvcClient({ apiKey: emu.apiKey, baseURL: emu.baseURL });
        const upload = (filename: string) =>
          client.files.upload({ file: Buffer.from('old notes'), filename, purpose: 'file-extract' });
        const kept = await upload('keep.txt');
        const file = await upload('old.txt');
        const pty = startPtySession(['chat'], env);
        session = pty;
        await pty.waitFor(/you › /);
        const mark = pty.output().length;
        // Two ids: one delete_file call each, so two approvals in one turn, answered no then yes.
        pty.type(`Please delete '${kept.id}' and '${file.id}'\r`);
        await pty.waitFor(new RegExp(`allow delete_file\\(.*${kept.id}.*\\)\\? \\[y/N\\]`), mark);
        const second = pty.output().length;
        pty.type('n\r');
        await pty.waitFor(new RegExp(`allow delete_file\\(.*${file.id}.*\\)\\? \\[y/N\\]`), second);
        pty.type('y\r');
        await pty.waitFor(
          /assistant › I did not run delete_file: you declined it\. delete_file \(file-\w+\): deleted\./,
          mark,
        );
        await expect(client.files.retrieve(kept.id)).resolves.toMatchObject({ id: kept.id });
        await expect(client.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
        pty.type('/exit\r');
        expect(await pty.exited).toBe(0);
        await client.close();
      },
      TIMEOUT,
    );
  });

  describe('when a request fails', () => {
    it(
      'should print the error in one line, keep the chat open and resume it with /retry',
      async () => {
        emu.setFaults([{ status: 402, path: '/chat/completions', times: 1 }]);
        const pty = startPtySession(['chat'], env);
        session = pty;
        await pty.waitFor(/you › /);
        let mark = pty.output().length;
        pty.type('Tell me about the roadmap\r');
        await pty.waitFor(
          /error: the account cannot pay for this request \(402 [a-z_]+\)[^\n]*\n.*you › /s,
          mark,
        );
        expect(pty.output().slice(mark)).not.toMatch(/\n\s+at /);
        mark = pty.output().length;
        pty.type('/retry\r');
        // Answered, from the echo or (with the knowledge base an earlier test made) from a search of it.
        await pty.waitFor(/assistant › (.*Tell me about the roadmap|I found nothing about that)/, mark);
        mark = pty.output().length;
        pty.type('/retry\r');
        await pty.waitFor(/nothing to retry/, mark);
        pty.type('/exit\r');
        expect(await pty.exited).toBe(0);
      },
      TIMEOUT,
    );
  });

  describe('when given a prompt on a terminal', () => {
    it(
      'should show the spinner, the tool activity and the answer together, then exit 0',
      async () => {
        emu.setFaults([]);
        const pty = startPtySession(['chat', 'What is the weather in Paris?'], env);
        session = pty;
        expect(await pty.exited).toBe(0);
        expect(pty.output()).toContain('⠋ thinking');
        expect(pty.output()).toMatch(/→ get_weather\(\{"city":"Paris"\}\)[\s\S]*light rain/);
      },
      TIMEOUT,
    );
  });
});
