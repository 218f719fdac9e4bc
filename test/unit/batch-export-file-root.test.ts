import { mkdirSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DirectoryStore } from '../../src/exports/destinations/file/directory-store';
import { FileRoot, PathRefusedError, isInside } from '../../src/exports/policy';
import { tempDir } from '../support/temp-dir';

// A sibling directory whose name starts with the root's is outside it: containment is a path
// relation, not a string prefix.
describe('export root containment', () => {
  it('admits the root and what is below it, not a sibling named like it, its parent or elsewhere', () => {
    expect(isInside('/data/exports', '/data/exports')).toBe(true);
    expect(isInside('/data/exports', '/data/exports/x')).toBe(true);
    expect(isInside('/data/exports', '/data/exports/..x/y')).toBe(true);
    expect(isInside('/', '/x')).toBe(true);
    expect(isInside('/data/exports', '/data/exports-evil/x')).toBe(false);
    expect(isInside('/data/exports', '/data/exportsx')).toBe(false);
    expect(isInside('/data/exports', '/data')).toBe(false);
    expect(isInside('/data/exports', '/etc/x')).toBe(false);
  });

  it('a File path: refuses <root>-evil/x, accepts <root>/x as the segments below the root', () => {
    const root = join(tempDir('file-root-'), 'exports');
    const files = new FileRoot(root);
    expect(() => files.segments(`${root}-evil/x`)).toThrow(PathRefusedError);
    expect(() => files.segments(`${root}-evil/x`)).toThrow(/outside the export root/);
    expect(files.segments(`${root}/x`)).toEqual(['x']);
    expect(files.segments(`${root}/`)).toEqual([]);
  });

  it('a link on the path may lead to a directory below the root, not to its namesake sibling', async () => {
    const root = join(tempDir('file-root-'), 'exports');
    mkdirSync(join(root, 'inner'), { recursive: true });
    mkdirSync(`${root}-evil`);
    symlinkSync(`${root}-evil`, join(root, 'leak'));
    symlinkSync(join(root, 'inner'), join(root, 'alias'));
    const files = new FileRoot(root);
    await expect(files.check('leak/x')).rejects.toThrow(/symbolic link/);
    await expect(files.check('alias/x')).resolves.toBeUndefined();
  });

  it('a File run key may not resolve into the namesake sibling', () => {
    const root = join(tempDir('file-root-'), 'exports');
    const store = new DirectoryStore(root);
    expect(() => store.describe(`../${basename(root)}-evil/x`)).toThrow(/outside the export directory/);
    expect(store.describe('x/y')).toBe(join(root, 'x', 'y'));
  });
});
