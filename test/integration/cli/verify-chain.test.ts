import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp-dir';

describe('verify checks the log hash chain', () => {
  it('signs the head it verified; an edited record makes it exit 1 naming the position', () => {
    const dir = tempDir('verify-chain-');
    expect(cli(dir, ['bootstrap', '--json']).code).toBe(0);
    cli(dir, ['projects', 'create', 'Second']);
    const good = cli(dir, ['verify']);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^chain ok: \d+ record\(s\) checked, head position \d+, hash [0-9a-f]{64}$/m);
    expect(existsSync(join(dir, 'chain-checkpoint.json'))).toBe(true);

    const again = cli(dir, ['verify', '--since-checkpoint']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/chain: checked from the checkpoint verify signed at/);

    const db = new Database(join(dir, 'events.sqlite'));
    const { position } = db.prepare<[], { position: number }>("SELECT position FROM events WHERE type = 'ProjectCreated' ORDER BY position DESC LIMIT 1").get()!;
    db.prepare("UPDATE events SET data = replace(data, 'Second', 'Secone') WHERE position = ?").run(position);
    db.close();
    const broken = cli(dir, ['verify']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`chain BROKEN at position ${position}: `);
  });

  it('says where the chain starts on a log that predates it', () => {
    const dir = tempDir('verify-legacy-');
    expect(cli(dir, ['bootstrap', '--json']).code).toBe(0);
    // As a log of the version before the chain: the same records, no hashes.
    const db = new Database(join(dir, 'events.sqlite'));
    const { n } = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM events').get()!;
    db.exec('UPDATE events SET hash = NULL; DROP TABLE chain_hashes');
    db.close();
    const before = cli(dir, ['verify']);
    expect(before.code).toBe(0);
    expect(before.stdout).toContain(`chain: ${n} record(s) up to position ${n} precede the chain`);
    expect(before.stdout).toContain('chain: starts with the next append');
    cli(dir, ['projects', 'create', 'After']);
    const after = cli(dir, ['verify']);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain(`chain: starts at position ${n + 1}`);
  });
});
