import { link, mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileTools } from '../../../src/tools/built-in/file-tools.js';
import { readInsideRoot } from '../../../src/tools/built-in/resolve-inside-root.js';
import { createFileFixture, type FileFixture } from '../../helpers/file-fixture.js';
import { callTool, jsonOf, startToolService, type ToolService } from '../../helpers/start-tool-service.js';

let service: ToolService;
let fixture: FileFixture;
let base: string;
let root: string;

beforeAll(async () => {
  service = await startToolService();
  fixture = await createFileFixture('svc-sandbox-', { 'secret.env': 'TOKEN=hunter2' });
  base = fixture.dir;
  root = fixture.path('work');
  await mkdir(root);
  // A hard link inside the root to a file outside it: realpath cannot tell.
  await link(path.join(base, 'secret.env'), path.join(root, 'notes.md'));
});
afterAll(async () => {
  await service.close();
  await fixture.remove();
});

describe('file sandbox', () => {
  describe('when a file inside the root is a hard link to one outside', () => {
    it('should refuse it unless the caller opts in', async () => {
      const refused = await callTool(fileTools(service.client, { root }), service.client, 'upload_file', {
        path: 'notes.md',
        purpose: 'storage',
      });
      expect(refused.status).toBe('error');
      expect(refused.content).toMatch(/Refused path "notes.md": it has 2 hard links/);
      const allowed = await callTool(
        fileTools(service.client, { root, allowHardLinks: true }),
        service.client,
        'upload_file',
        { path: 'notes.md', purpose: 'storage' },
      );
      expect(jsonOf(allowed)).toMatchObject({ filename: 'notes.md' });
    });
  });

  describe('when a checked directory is swapped for a symlink while files are read', () => {
    it('should never read the file outside, in 1000 tries', async () => {
      const outside = path.join(base, 'outside');
      await mkdir(outside);
      await writeFile(path.join(outside, 'a.txt'), 'SECRET');
      const dir = path.join(root, 'dir');
      const real = path.join(root, 'dir-real');
      await mkdir(real);
      await writeFile(path.join(real, 'a.txt'), 'inside');
      await rename(real, dir);
      let swapping = true;
      // Flips root/dir between the real directory and a symlink to the outside one, as fast as it can.
      const swapper = (async () => {
        while (swapping) {
          await rename(dir, real);
          await symlink(outside, dir);
          await new Promise((resolve) => setImmediate(resolve));
          await rm(dir);
          await rename(real, dir);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const seen = { inside: 0, refused: 0, escaped: 0 };
      try {
        for (let i = 0; i < 1000; i++) {
          try {
            const { bytes } = await readInsideRoot(root, 'dir/a.txt');
            if (bytes.toString() === 'SECRET') seen.escaped++;
            else seen.inside++;
          } catch {
            seen.refused++;
          }
        }
      } finally {
        swapping = false;
        await swapper;
      }
      expect(seen.escaped).toBe(0);
      expect(seen.inside + seen.refused).toBe(1000);
    });
  });
});
