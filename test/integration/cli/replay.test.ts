import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp-dir';

describe('replay and verify', () => {
  it('replay digests equal the live ones; a tampered read model fails verify', () => {
    const dir = tempDir('replay-');
    cli(dir, ['bootstrap', '--json']);
    for (const name of ['A', 'B', 'C']) cli(dir, ['projects', 'create', name]);
    cli(dir, ['keys', 'create', '--scopes', 'experiment:read']);

    const verified = cli(dir, ['verify', '--json']);
    expect(verified.code).toBe(0);
    const result = JSON.parse(verified.stdout);
    expect(result.ok).toBe(true);
    expect(result.rows.length).toBeGreaterThan(0);

    const replayed = cli(dir, ['replay', '--json']);
    expect(replayed.code).toBe(0);
    expect(replayed.stderr).toMatch(/replay \[#+\] 100\.0%/);
    const digests = JSON.parse(replayed.stdout).digests;
    for (const row of result.rows) expect(digests.find((d: { projection: string }) => d.projection === row.projection).digest).toBe(row.live);

    const db = new Database(join(dir, 'readmodels.sqlite'));
    db.prepare("UPDATE projects SET name = 'tampered' WHERE id = 2").run();
    db.close();
    const broken = cli(dir, ['verify']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/DIFF access/);
  });
});
