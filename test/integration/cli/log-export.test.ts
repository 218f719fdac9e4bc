import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { repoRoot } from '../../support/child';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp-dir';

/** The script docs/auditing.md gives auditors, exactly as printed there. */
function auditorScript(dir: string): string {
  const doc = readFileSync(join(repoRoot, 'docs/auditing.md'), 'utf8');
  const block = /<!-- auditor-script[^>]*-->\n```js\n([\s\S]*?)```/.exec(doc);
  expect(block, 'the auditor script block in docs/auditing.md').not.toBeNull();
  expect(block![1].trim().split('\n').length).toBeLessThanOrEqual(22);
  const path = join(dir, 'chain-check.mjs');
  writeFileSync(path, block![1]);
  return path;
}

const runScript = (script: string, input: string, args: string[] = []) => {
  const r = spawnSync(process.execPath, [script, ...args], { input, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('log export and the auditor script of docs/auditing.md', () => {
  const dir = tempDir('log-export-');
  const script = auditorScript(tempDir('auditor-'));

  it('exports every record with its hash; the script recomputes the head the log holds; an edited line fails', async () => {
    expect(cli(dir, ['bootstrap', '--json']).code).toBe(0);
    expect(cli(dir, ['projects', 'create', 'Ünïcode "quoted"\\n']).code).toBe(0);
    const exported = cli(dir, ['log', 'export']);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/exported \d+ record\(s\)/);
    const lines = exported.stdout.trimEnd().split('\n');
    const log = new SqliteEventLog(join(dir, 'events.sqlite'));
    const all = await log.readAll();
    const head = await log.chainHead();
    await log.close();
    expect(lines).toHaveLength(all.length);
    expect(lines.map((l) => JSON.parse(l).hash)).toEqual(all.map((e) => e.hash));
    expect(JSON.parse(lines[0]).prev).toBe('');

    const checked = runScript(script, exported.stdout);
    expect(checked.stderr).toBe('');
    expect(checked.stdout.trim()).toBe(`${all.length} records checked, head ${head.hash}`);

    // One character of one record's data, as a forger would change it.
    const k = lines.findIndex((l) => l.includes('Ünïcode'));
    const edited = lines.map((l, i) => (i === k ? l.replace('Ünïcode', 'Unicode') : l)).join('\n');
    const broken = runScript(script, edited);
    expect(broken.code).toBe(1);
    expect(broken.stderr.trim()).toBe(`BROKEN at position ${all[k].position}: hash does not match its content`);
    // A line removed: the next one no longer links.
    const removed = runScript(script, lines.filter((_, i) => i !== 1).join('\n'));
    expect(removed.stderr.trim()).toBe(`BROKEN at position ${all[2].position}: does not link to the record before it`);
  });

  it('exports a range and a single stream, each still checkable', () => {
    const all = cli(dir, ['log', 'export']).stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { position: number; streamId: string });
    const [from, to] = [all[1].position, all[3].position];
    const range = cli(dir, ['log', 'export', '--from', String(from), '--to', String(to)]);
    expect(range.stdout.trimEnd().split('\n').map((l) => JSON.parse(l).position)).toEqual([all[1], all[2], all[3]].map((r) => r.position));
    expect(runScript(script, range.stdout).code).toBe(0);

    const stream = all.at(-1)!.streamId;
    const one = cli(dir, ['log', 'export', '--stream', stream]);
    const records = one.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { streamId: string });
    expect(records.length).toBe(all.filter((r) => r.streamId === stream).length);
    expect(new Set(records.map((r) => r.streamId))).toEqual(new Set([stream]));
    expect(runScript(script, one.stdout, ['--partial']).code).toBe(0);

    const bad = cli(dir, ['log', 'export', '--from', 'ten']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe("error: option '--from <position>' argument 'ten' is invalid. Expected a log position (a whole number).");
  });

  it('log show prints one stream readably; an unknown stream exits 1', () => {
    const all = cli(dir, ['log', 'export']).stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { streamId: string; type: string; hash: string });
    const project = all.find((r) => r.type === 'ProjectCreated' && JSON.stringify(r).includes('quoted'))!;
    const shown = cli(dir, ['log', 'show', project.streamId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^#0 {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}ProjectCreated v\d+ {2}by cli {2}position \d+ {2}hash [0-9a-f]{16}…$/m);
    expect(shown.stdout).toContain(project.hash.slice(0, 16));
    expect(shown.stdout).toContain('"name": "Ünïcode \\"quoted\\"\\\\n"');
    const missing = cli(dir, ['log', 'show', 'no-such-stream']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('error: "no-such-stream": no such stream in the log');
  });
});
