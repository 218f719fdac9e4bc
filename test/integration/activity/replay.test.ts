import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { json } from '../../support/json';
import { startTestServer } from '../../support/server';

// The activity history is a projection of the log: `verify` rebuilds it and must find the same
// digest, and an edited entry must be caught.
describe('replay of the activity history', () => {
  it('verify reproduces it exactly; a tampered entry is caught', async () => {
    const s = await startTestServer();
    const base = `/api/projects/${s.credentials.project_id}`;
    const send = (method: string, path: string, body?: unknown) => s.api(path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    try {
      for (let i = 0; i < 3; i++) {
        const flag = await json(await send('POST', `${base}/feature_flags/`, { key: `replayed-${i}`, name: 'r' }));
        await send('PATCH', `${base}/feature_flags/${flag.id}/`, { name: `r${i}`, active: false });
        if (i === 1) await send('DELETE', `${base}/feature_flags/${flag.id}/`);
      }
      const exp = await json(await send('POST', `${base}/experiments/`, { name: 'Replayed', feature_flag_key: 'replayed-exp' }));
      await send('PATCH', `${base}/experiments/${exp.id}/`, { description: 'd' });
      const live = await json(await s.api(`${base}/activity_log/?limit=1000`));
      expect(live.count).toBe(3 * 2 + 1 + 2 + 1);
    } finally {
      await s.close();
    }

    const verified = cli(s.dataDir, ['verify', '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    const report = JSON.parse(verified.stdout);
    expect(report.ok).toBe(true);
    expect(report.rows.map((r: { projection: string }) => r.projection)).toContain('activity');

    const db = new Database(join(s.dataDir, 'readmodels.sqlite'));
    db.prepare("UPDATE activity_log SET detail = replace(detail, 'r0', 'rX')").run();
    db.close();
    const broken = cli(s.dataDir, ['verify']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/DIFF activity/);
  });
});
