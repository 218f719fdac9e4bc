import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../../src/cli/program';
import { run } from '../../../src/cli/run';
import { cli, cliAsync } from '../../support/cli';
import { json } from '../../support/json';
import { startTestServer } from '../../support/server';
import { tempDir } from '../../support/temp-dir';

/**
 * A command line run in this process, as main.ts runs it, with what it writes captured: help and
 * refused command lines never open the store, so a process per case (tsx start-up included) buys
 * nothing; one case still goes through a real process below.
 */
async function runHere(dataDir: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  const before = process.env.DATA_DIR;
  process.env.DATA_DIR = dataDir;
  try {
    return { code: await run(argv), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    if (before === undefined) delete process.env.DATA_DIR;
    else process.env.DATA_DIR = before;
  }
}

/** Every command that runs something (leaves of the tree), with its path from the program. */
function leaves(command: Command, path: string[] = []): { path: string[]; command: Command }[] {
  const subs = command.commands.filter((c) => c.name() !== 'help');
  if (!subs.length) return [{ path, command }];
  return subs.flatMap((c) => leaves(c, [...path, c.name()]));
}

describe('CLI usage', () => {
  it('--help of every command shows its options, its arguments and an example, and exits 0', async () => {
    const commands = leaves(buildProgram());
    // The commands a user has today are all there (a new one joins this list by registering itself).
    expect(commands.map((c) => c.path.join(' '))).toEqual(expect.arrayContaining(['bootstrap', 'keys create', 'keys list', 'keys revoke', 'projects create', 'projects list', 'import', 'replay', 'verify']));
    const dir = tempDir('cli-help-');
    const runs: Awaited<ReturnType<typeof runHere>>[] = [];
    for (const { path } of commands) runs.push(await runHere(dir, [...path, '--help']));
    // The same through a real process, once.
    const spawned = await cliAsync(dir, ['import', '--help']);
    expect(spawned.code).toBe(0);
    expect(spawned.stdout).toBe(runs[commands.findIndex((c) => c.path.join(' ') === 'import')].stdout);
    commands.forEach(({ path, command }, i) => {
      const { code, stdout } = runs[i];
      expect(code, path.join(' ')).toBe(0);
      expect(stdout).toContain(`Usage: npm run -s cli -- ${path.join(' ')}`);
      for (const option of command.options) expect(stdout, `${path.join(' ')} ${option.long}`).toContain(option.long!);
      for (const argument of command.registeredArguments) expect(stdout).toContain(argument.name());
      expect(stdout, path.join(' ')).toMatch(/Examples?:\n {2}\$ npm run -s cli -- /);
    });
    // A few options by name, so an option lost from both the command and its help is noticed too.
    const help = (path: string) => runs[commands.findIndex((c) => c.path.join(' ') === path)].stdout;
    for (const flag of ['--scopes', '--projects', '--organizations', '--label', '--user', '--json']) expect(help('keys create')).toContain(flag);
    for (const flag of ['--project', '--batch-size', '--source', '--restart', '--json']) expect(help('import')).toContain(flag);
    expect(help('replay')).toContain('--out');

    // A command with subcommands lists them in its help; alone, it prints that help as a usage error.
    for (const group of buildProgram().commands.filter((c) => c.commands.length)) {
      const shown = await runHere(dir, [group.name(), '--help']);
      const bare = await runHere(dir, [group.name()]);
      expect(shown.code).toBe(0);
      for (const sub of group.commands) expect(shown.stdout).toContain(sub.name());
      expect(bare.code).toBe(2);
      expect(bare.stderr).toContain(`Usage: npm run -s cli -- ${group.name()}`);
    }
  }, 240_000);

  it('an unknown option, a missing file and a directory each give one line naming it and exit 2', async () => {
    const dir = tempDir('cli-errors-');
    const missing = join(dir, 'nowhere.jsonl');
    const folder = join(dir, 'a-directory');
    mkdirSync(folder);
    const cases: [string[], string][] = [
      [['keys', 'create', '--scope', 'feature_flag:read'], "error: unknown option '--scope' (did you mean --scopes?)"],
      [['import', 'x.jsonl', '--bogus'], "error: unknown option '--bogus'"],
      [['import', missing], `error: ${missing}: no such file`],
      [['import', folder], `error: ${folder}: is a directory`],
      [['import', '-', '--batch-size', 'ten'], "error: option '--batch-size <n>' argument 'ten' is invalid. Expected a positive integer."],
      [['replay', '--out', join(dir, 'file.txt')], `error: ${join(dir, 'file.txt')}: not a directory`],
      [['frobnicate'], "error: unknown command 'frobnicate'"],
    ];
    writeFileSync(join(dir, 'file.txt'), '');
    for (const [args, line] of cases) {
      const r = await runHere(dir, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.split('\n').filter(Boolean), args.join(' ')).toEqual([line]);
      expect(r.stdout).toBe('');
    }
    // Through a real process too, once.
    const spawned = cli(dir, cases[0][0]);
    expect(spawned.code).toBe(2);
    expect(spawned.stderr.split('\n').filter(Boolean)).toEqual([cases[0][1]]);
    // Nothing was opened: refused command lines leave no log in the data directory.
    expect(existsSync(join(dir, 'events.sqlite'))).toBe(false);
  }, 240_000);

  it("an import's final count equals the events the API lists; refused events are counted apart", async () => {
    const dir = tempDir('cli-count-');
    expect((await runHere(dir, ['bootstrap', '--json'])).code).toBe(0);
    const good = Array.from({ length: 57 }, (_, i) => JSON.stringify({ event: 'counted', distinct_id: `d${i % 5}`, timestamp: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(), properties: { i } }));
    const lines = [
      ...good.slice(0, 20),
      JSON.stringify({ distinct_id: 'no-name', properties: {} }), // no event name: an ingestion warning
      'not json at all', // skipped before ingestion
      ...good.slice(20, 40),
      JSON.stringify({ event: 'counted', distinct_id: 'p', properties: 'not an object' }), // malformed properties: a warning
      ...good.slice(40),
    ];
    const file = join(dir, 'history.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    const r = await runHere(dir, ['import', file, '--batch-size', '10', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ events: 57, ingestion_warnings: 2, skipped_lines: 1, lines: lines.length });
    // Progress is in events and events/s, the last line at 100% of the file.
    expect(r.stderr).toMatch(/import \[#{30}\] 100\.0% 57 events \([\d,]+ events\/s, [\d.]+ s\)/);

    const server = await startTestServer({ dataDir: dir });
    try {
      const events = await json(await server.api(`/api/projects/${server.credentials.project_id}/events/?event=counted&limit=1000`));
      expect(events.results).toHaveLength(summary.events);
      const warnings = await json(await server.api(`/api/projects/${server.credentials.project_id}/ingestion_warnings/?limit=1000`));
      expect(warnings.results).toHaveLength(summary.ingestion_warnings);
    } finally {
      await server.close();
    }

    // Replay counts events too, not log records (an import batch is one record holding many events).
    const replayed = await runHere(dir, ['replay']);
    expect(replayed.code, replayed.stderr).toBe(0);
    const folded = Number(/100\.0% ([\d,]+) events \(/.exec(replayed.stderr)![1].replace(/,/g, ''));
    expect(folded).toBeGreaterThanOrEqual(57);

    // The text summary says the same.
    const again = await runHere(dir, ['import', file, '--restart']);
    expect(again.stdout).toBe(`imported 57 events from ${lines.length} lines (1 skipped as not JSON, 2 refused by ingestion (see ingestion_warnings)) into project ${server.credentials.project_id}\n`);
  }, 240_000);
});
