import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toneWav } from '../../examples/support/tone-wav.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/types.js';
import { childEnv, cliMain, runCli, tsxImport } from '../helpers/run-cli-process.js';

const TIMEOUT = 60_000;

describe('svc-agents commands', () => {
  let emu: Emulator;
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0, parseDelayMs: 100 });
    env = { SVC_BASE_URL: emu.baseURL, SVC_API_KEY: emu.apiKey };
    dir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
    await writeFile(join(dir, 'hours.md'), 'The office is open from 9 to 17 on weekdays.\n');
    await writeFile(join(dir, 'parking.md'), 'Visitors park for free in the north lot.\n');
  });
  afterAll(async () => {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) => runCli(args, { env, cwd: dir });

  describe('kb', () => {
    it(
      'should create a store, upload and add files, list them and answer from them',
      async () => {
        const created = await cli(['kb', 'create', 'office_docs', '--json']);
        expect(created.code).toBe(0);
        const store = JSON.parse(created.stdout) as { id: string; name: string };
        expect(store.name).toBe('office_docs');

        const added = await cli(['kb', 'add', 'office_docs', 'hours.md', 'parking.md']);
        expect(added.code).toBe(0);
        expect(added.stdout).toMatch(/added hours\.md \(file-[^,]+, 45 bytes\)/);
        expect(added.stdout).toContain(`2 file(s) added to office_docs (${store.id})`);
        // Added only once parsed: the files reached "success" before the store request.
        const paths = emu.requests().map((r) => `${r.method} ${r.path}`);
        const addAt = paths.lastIndexOf(`POST /v1/vector_stores/${store.id}/files`);
        expect(
          paths.slice(0, addAt).filter((p) => p.startsWith('GET /v1/files/')).length,
        ).toBeGreaterThanOrEqual(2);

        const stores = await cli(['kb', 'ls']);
        expect(stores.stdout).toMatch(new RegExp(`${store.id}\\s+office_docs\\s+text\\s+2`));
        const files = JSON.parse((await cli(['kb', 'ls', store.id, '--json'])).stdout) as {
          files: unknown[];
        };
        expect(files.files).toHaveLength(2);

        const answer = await cli(['kb', 'ask', 'office_docs', 'When is the office open?']);
        expect(answer.code).toBe(0);
        expect(answer.stdout).toMatch(/hours\.md.*9 to 17/);
        const ask = emu.requests().findLast((r) => r.path === '/v1/chat/completions')?.body as {
          tools: unknown[];
        };
        expect(ask.tools).toEqual([
          expect.objectContaining({
            type: 'retrieval',
            function: expect.objectContaining({
              options: expect.objectContaining({ vector_store_id: store.id }),
            }),
          }),
        ]);
      },
      TIMEOUT * 2,
    );

    it(
      'should refuse a missing file before uploading anything',
      async () => {
        const before = emu.requests().length;
        const result = await cli(['kb', 'add', 'office_docs', 'nope.md']);
        expect(result.code).toBe(1);
        expect(result.stderr).toBe('error: no such file: nope.md\n');
        expect(emu.requests().length).toBe(before);
      },
      TIMEOUT,
    );

    it(
      'should name an unknown store',
      async () => {
        const result = await cli(['kb', 'ls', 'no_such_store']);
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(
          /^error: no knowledge base with id or name "no_such_store"; the account has: office_docs \(/,
        );
      },
      TIMEOUT,
    );
  });

  describe('image', () => {
    it(
      'should write a PNG of the requested size with the seed',
      async () => {
        const result = await cli([
          'image',
          'a red fox',
          '-o',
          'fox.png',
          '--size',
          '256x256',
          '--seed',
          '7',
          '--json',
        ]);
        expect(result.code).toBe(0);
        expect(JSON.parse(result.stdout)).toMatchObject({
          size: '256x256',
          seed: 7,
          finishReason: 'success',
        });
        const png = await readFile(join(dir, 'fox.png'));
        expect(png.subarray(1, 4).toString()).toBe('PNG');
        expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([256, 256]);
      },
      TIMEOUT,
    );

    it(
      'should add the image to an image knowledge base with a description, refusing text files up front',
      async () => {
        expect((await cli(['kb', 'create', 'pictures', '--type', 'image'])).code).toBe(0);
        const before = emu.requests().length;
        const refused = await cli(['kb', 'add', 'pictures', 'fox.png', 'hours.md']);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toBe(
          'error: hours.md: an image knowledge base takes png, jpg, webp or gif files\n',
        );
        expect(emu.requests().filter((r) => r.method === 'POST').length).toBe(
          emu
            .requests()
            .slice(0, before)
            .filter((r) => r.method === 'POST').length,
        );
        const added = JSON.parse((await cli(['kb', 'add', 'pictures', 'fox.png', '--json'])).stdout) as {
          store: { id: string };
          files: Array<{ id: string }>;
        };
        const request = emu
          .requests()
          .findLast((r) => r.path === `/v1/vector_stores/${added.store.id}/files`);
        expect(request?.body).toMatchObject({ files: [{ description: 'fox.png' }] });
        const file = await fetch(`${emu.baseURL}/v1/files/${added.files[0]?.id}`, {
          headers: { authorization: `Bearer ${emu.apiKey}` },
        });
        expect(await file.json()).toMatchObject({ purpose: 'retrieval-image', status: 'success' });
      },
      TIMEOUT,
    );

    it(
      'should refuse a size the spec does not list, naming the field, before any request',
      async () => {
        const before = emu.requests().length;
        const result = await cli(['image', 'a fox', '--size', '13x13']);
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(/^error: invalid request: size: must be one of .*\n$/);
        expect(emu.requests().length).toBe(before);
      },
      TIMEOUT,
    );
  });

  describe('voice', () => {
    it(
      'should clone a voice from a 6 s sample, write the preview and list it',
      async () => {
        await writeFile(join(dir, 'sample.wav'), toneWav({ seconds: 6 }));
        const cloned = await cli([
          'voice',
          'clone',
          'sample.wav',
          '--model',
          'svc-tts-mini',
          '--preview',
          'p.wav',
        ]);
        expect(cloned.code).toBe(0);
        const id = /cloned voice (\S+) from sample\.wav/.exec(cloned.stdout)?.[1];
        expect(id).toMatch(/^voice-/);
        expect((await readFile(join(dir, 'p.wav'))).subarray(0, 4).toString()).toBe('RIFF');
        const listed = JSON.parse((await cli(['voice', 'ls', '--json'])).stdout) as Array<{ id: string }>;
        expect(listed.map((v) => v.id)).toContain(id);
      },
      TIMEOUT,
    );

    it(
      'should pass on the service refusing a sample that is too short, in one line',
      async () => {
        await writeFile(join(dir, 'short.wav'), toneWav({ seconds: 2 }));
        const result = await cli(['voice', 'clone', 'short.wav']);
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(
          /^error: the service refused the request \(400 request_params_invalid\): .*5 to 10 seconds.*\n$/,
        );
      },
      TIMEOUT,
    );
  });

  describe('tokens', () => {
    it(
      'should print the count, as a number or as JSON',
      async () => {
        const plain = await cli(['tokens', 'hello world, how are you?']);
        expect(plain.code).toBe(0);
        const count = Number(plain.stdout.trim());
        expect(count).toBeGreaterThan(3);
        const json = JSON.parse(
          (await cli(['tokens', 'hello world, how are you?', '--json', '-m', 'svc-3.7-flash'])).stdout,
        );
        expect(json).toEqual({ model: 'svc-3.7-flash', format: 'chat', totalTokens: count });
      },
      TIMEOUT,
    );
  });

  describe('emulator', () => {
    it(
      'should serve until SIGINT, print where with --json, then stop cleanly',
      async () => {
        const child = spawn(
          process.execPath,
          ['--import', tsxImport, cliMain, 'emulator', '--port', '0', '--json'],
          {
            env: childEnv(),
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let stdout = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
        });
        const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
        try {
          await expect.poll(() => stdout, { timeout: 30_000, interval: 100 }).toMatch(/\}\s*$/);
          const info = JSON.parse(stdout) as { baseURL: string; apiKey: string; port: number };
          expect(info.baseURL).toBe(`http://127.0.0.1:${info.port}`);
          const models = await fetch(`${info.baseURL}/v1/models`, {
            headers: { authorization: `Bearer ${info.apiKey}` },
          });
          expect(models.status).toBe(200);
          child.kill('SIGINT');
          expect(await exited).toBe(0);
        } finally {
          child.kill('SIGKILL');
        }
      },
      TIMEOUT,
    );
  });
});
