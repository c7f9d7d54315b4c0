import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveInsideRoot } from '../../../src/tools/built-in/resolve-inside-root.js';
import { PathOutsideRootError } from '../../../src/tools/errors.js';
import { createFileFixture, type FileFixture } from '../../helpers/file-fixture.js';

let fixture: FileFixture;
let base: string;
let root: string;

beforeAll(async () => {
  fixture = await createFileFixture('svc-tools-', {
    'root/docs/notes.txt': 'inside',
    'secret.txt': 'outside',
  });
  base = fixture.dir;
  root = fixture.path('root');
  await symlink(path.join(base, 'secret.txt'), path.join(root, 'link-out.txt'));
  await symlink(path.join(root, 'docs', 'notes.txt'), path.join(root, 'link-in.txt'));
  await symlink(base, path.join(root, 'dir-out'));
});
afterAll(() => fixture.remove());

describe('resolveInsideRoot', () => {
  describe('when the path stays inside the root', () => {
    it.each([
      ['a relative path', 'docs/notes.txt'],
      ['a path with harmless ..', 'docs/../docs/notes.txt'],
      ['a symlink to a file inside', 'link-in.txt'],
    ])('should resolve %s', async (_label, requested) => {
      expect(await resolveInsideRoot(root, requested)).toBe(path.join(root, 'docs', 'notes.txt'));
    });

    it('should accept an absolute path below the root', async () => {
      const absolute = path.join(root, 'docs', 'notes.txt');
      expect(await resolveInsideRoot(root, absolute)).toBe(absolute);
    });
  });

  describe('when the path escapes the root', () => {
    it.each([
      ['a .. escape', '../secret.txt', 'outside the allowed directory'],
      ['a deep .. escape', 'docs/../../secret.txt', 'outside the allowed directory'],
      ['an absolute path elsewhere', '/etc/passwd', 'outside the allowed directory'],
      ['a symlink to a file outside', 'link-out.txt', 'link to a place outside'],
      ['a path through a symlinked directory', 'dir-out/secret.txt', 'link to a place outside'],
      ['the root itself', '.', 'outside the allowed directory'],
      ['a missing file', 'docs/missing.txt', 'no such file'],
      ['a directory', 'docs', 'not a regular file'],
      ['an empty path', '', 'not a valid path'],
    ])('should refuse %s', async (_label, requested, reason) => {
      const promise = resolveInsideRoot(root, requested);
      await expect(promise).rejects.toBeInstanceOf(PathOutsideRootError);
      await expect(promise).rejects.toThrow(reason);
    });
  });
});
