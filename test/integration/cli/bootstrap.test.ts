import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { npmStartArgs, repoRoot, runBuilt } from '../../support/child';
import { tempDir } from '../../support/temp-dir';
import { startTestServer } from '../../support/server';
import { json } from '../../support/json';

describe('bootstrap', () => {
  it('prints exactly one JSON object, writes credentials.json 0600, and is idempotent', async () => {
    const dir = tempDir('boot-');
    const first = cli(dir, ['bootstrap', '--json']);
    expect(first.code).toBe(0);
    const creds = JSON.parse(first.stdout);
    expect(first.stdout.trim().split('\n')).toHaveLength(1);
    expect(Object.keys(creds).sort()).toEqual(['organization_id', 'personal_api_key', 'project_api_key', 'project_id']);
    expect(creds.project_api_key).toMatch(/^phc_[A-Za-z0-9]{43}$/);
    expect(creds.personal_api_key).toMatch(/^phx_[A-Za-z0-9]{47}$/);
    const file = join(dir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(creds);

    const again = JSON.parse(cli(dir, ['bootstrap', '--json']).stdout);
    expect(again.organization_id).toBe(creds.organization_id);
    expect(again.project_id).toBe(creds.project_id);
    expect(again.project_api_key).toBe(creds.project_api_key);
    expect(again.personal_api_key).not.toBe(creds.personal_api_key);

    // The log never holds a key in clear, only its hash.
    const log = readFileSync(join(dir, 'events.sqlite')).toString('latin1');
    expect(log).not.toContain(creds.personal_api_key);

    const server = await startTestServer({ dataDir: dir });
    for (const key of [creds.personal_api_key, again.personal_api_key]) {
      const res = await server.api(`/api/projects/${creds.project_id}/`, { key });
      expect(res.status).toBe(200);
      expect((await json(res)).api_token).toBe(creds.project_api_key);
    }
    await server.close();
  });

  it('manages keys and projects from the CLI', async () => {
    const dir = tempDir('keys-');
    const creds = JSON.parse(cli(dir, ['bootstrap', '--json']).stdout);
    const proj = JSON.parse(cli(dir, ['projects', 'create', 'Mobile', 'app', '--json']).stdout);
    expect(proj.id).toBe(creds.project_id + 1);
    const created = JSON.parse(cli(dir, ['keys', 'create', '--scopes', 'project:read', '--projects', String(proj.id), '--json']).stdout);
    expect(created.scopes).toEqual(['project:read']);
    const listed = JSON.parse(cli(dir, ['keys', 'list', '--json']).stdout);
    expect(listed.map((k: { id: string }) => k.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect(cli(dir, ['keys', 'create', '--scopes', 'nonsense']).code).toBe(2);
    expect(cli(dir, ['keys', 'revoke', created.id]).code).toBe(0);
    const revoked = JSON.parse(cli(dir, ['keys', 'list', '--json']).stdout).find((k: { id: string }) => k.id === created.id);
    expect(revoked.revoked_at).not.toBeNull();
  });

  it('the server bootstraps an empty directory on first start and prints the credentials once', async () => {
    const dir = tempDir('start-');
    const run = runBuilt({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info' });
    await run.waitForLine((l) => l.includes('Server listening'));
    const out = run.lines.join('\n');
    const creds = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
    expect(out).toContain(creds.personal_api_key);
    expect(out).toContain(creds.project_api_key);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    const second = runBuilt({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'info' });
    await second.waitForLine((l) => l.includes('Server listening'));
    expect(second.lines.join('\n')).not.toContain('phx_');
    second.child.kill('SIGTERM');
    await second.exited;
  });

  it('an invalid configuration is one clear line and exit code 2', () => {
    const r = spawnSync(process.execPath, npmStartArgs(), {
      cwd: repoRoot,
      env: { ...process.env, PORT: 'not-a-port' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/PORT/);
  });
});
