import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp-dir';

const indexesOf = (file: string, table: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare<[string], { name: string; sql: string | null }>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name").all(table);
  } finally {
    db.close();
  }
};

describe('replay --out', () => {
  // A replay builds the events table's secondary indexes after its fold (TableSchema.builtAfterReplay):
  // the directory it leaves must have them all, as a store folded live has.
  it('leaves every index of the live store, those built after the fold included', () => {
    const dir = tempDir('replay-indexes-');
    expect(cli(dir, ['bootstrap', '--json']).code).toBe(0);
    const file = join(dir, 'events.jsonl');
    const lines = Array.from({ length: 30 }, (_, i) => JSON.stringify({ event: i % 2 ? '$pageview' : 'bought', distinct_id: `user-${i % 4}`, properties: { i }, timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString() }));
    writeFileSync(file, lines.join('\n') + '\n');
    const imported = cli(dir, ['import', file, '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const out = join(tempDir('replay-indexes-out-'), 'rebuilt');
    const replayed = cli(dir, ['replay', '--out', out, '--json']);
    expect(replayed.code, replayed.stderr).toBe(0);

    const live = indexesOf(join(dir, 'readmodels.sqlite'), 'events');
    expect(live.map((i) => i.name)).toEqual(expect.arrayContaining(['events_by_distinct_id', 'events_by_name_time', 'events_by_received_at', 'events_by_time']));
    expect(indexesOf(join(out, 'readmodels.sqlite'), 'events')).toEqual(live);

    const rebuilt = new Database(join(out, 'readmodels.sqlite'), { readonly: true });
    try {
      expect((rebuilt.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n).toBe(30);
      expect(rebuilt.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      rebuilt.close();
    }
  });
});
