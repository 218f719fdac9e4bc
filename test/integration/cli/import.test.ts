import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRuntime } from '../../../src/app';
import { spawnSync } from 'node:child_process';
import { cliArgs, repoRoot } from '../../support/child';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp-dir';

async function importedRows(dataDir: string) {
  const runtime = openRuntime({ dataDir });
  try {
    await runtime.runner.catchUp();
    return runtime.stores!.readmodels.prepare("SELECT uuid, json_extract(properties, '$.n') AS n FROM events WHERE event = 'imported' ORDER BY n").all() as { uuid: string; n: number }[];
  } finally {
    await runtime.close();
  }
}

const lines = (count: number) =>
  Array.from({ length: count }, (_, i) => JSON.stringify({ event: 'imported', distinct_id: `u${i % 7}`, timestamp: new Date(Date.UTC(2023, 0, 1) + i * 1000).toISOString(), properties: { n: i } }));

describe('import: the same events from a file and then from stdin', () => {
  it('are stored once: their uuids come from their content, not from where they were read', async () => {
    const dir = tempDir('import-');
    expect(cli(dir, ['bootstrap', '--json']).code).toBe(0);
    const file = join(dir, 'history.jsonl');
    writeFileSync(file, lines(40).join('\n') + '\n');
    const fromFile = cli(dir, ['import', file, '--json']);
    expect(fromFile.code).toBe(0);
    // The same events again through stdin, formatted differently (keys reordered, spaces).
    const reformatted = lines(40).map((l) => {
      const e = JSON.parse(l);
      return JSON.stringify({ properties: e.properties, timestamp: e.timestamp, distinct_id: e.distinct_id, event: e.event }, null, 1).replace(/\n/g, ' ');
    });
    const fromStdin = cli(dir, ['import', '-', '--json'], reformatted.join('\n') + '\n');
    expect(fromStdin.code).toBe(0);
    const rows = await importedRows(dir);
    expect(rows.map((r) => r.n)).toEqual([...Array(40).keys()]);
    expect(new Set(rows.map((r) => r.uuid)).size).toBe(40);
  });

  it('waits out the historical-migration limit and resends, importing everything in order', async () => {
    const dir = tempDir('import-limited-');
    expect(cli(dir, ['bootstrap', '--json']).code).toBe(0);
    const file = join(dir, 'history.jsonl');
    writeFileSync(file, lines(60).join('\n') + '\n');
    // 40 events per second, batches of 20: the third batch has to wait for the bucket.
    const r = spawnSync(process.execPath, cliArgs(['import', file, '--batch-size', '20', '--json']), {
      cwd: repoRoot,
      env: { ...process.env, DATA_DIR: dir, INGEST_HISTORICAL_EVENTS_PER_SECOND: '40' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ events: 60, skipped_lines: 0 });
    expect(r.stderr).toMatch(/rate limited \(historical_events_per_second\): resending in 0\.\d s/);
    const rows = await importedRows(dir);
    expect(rows.map((row) => row.n)).toEqual([...Array(60).keys()]);
  });
});
