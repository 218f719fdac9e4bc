import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { storeFiles } from '../../../src/app';
import { json } from '../../support/json';
import { startTestServer } from '../../support/server';
import { send } from '../experiments/helpers';

// Version 2 of the early access read model orders rows by the creation's log position instead of
// SQLite's rowid: a data directory folded by version 1 is rebuilt on start.
describe('early access read model upgrade', () => {
  it('a store folded by version 1 (no created_position) is rebuilt from the log on start', async () => {
    let s = await startTestServer();
    const dataDir = s.dataDir;
    const base = `/api/projects/${s.credentials.project_id}/early_access_feature/`;
    const ids: string[] = [];
    for (const name of ['First', 'Second']) {
      const res = await send(s, 'POST', base, { name, stage: 'beta' });
      expect(res.status).toBe(201);
      ids.push((await json(res)).id);
    }
    await s.close();

    // What version 1 left behind: the same rows, without the column, and its checkpoint.
    const db = new Database(storeFiles(dataDir).readmodels);
    db.exec(`CREATE TABLE v1 AS SELECT id, project_id, name, stage, fields, flag_key, flag_linked, gone, created_by, created_at, updated_at, version FROM early_access_features;
      DROP TABLE early_access_features; ALTER TABLE v1 RENAME TO early_access_features;
      UPDATE projection_checkpoints SET version = 1 WHERE name = 'early_access';`);
    db.close();

    s = await startTestServer({ dataDir });
    try {
      const listed = await json(await s.api(base));
      expect(listed.results.map((f: { id: string }) => f.id).sort()).toEqual([...ids].sort());
      const check = new Database(storeFiles(dataDir).readmodels, { readonly: true });
      const rows = check.prepare('SELECT id FROM early_access_features ORDER BY created_position').all() as { id: string }[];
      const version = (check.prepare("SELECT version FROM projection_checkpoints WHERE name = 'early_access'").get() as { version: number }).version;
      check.close();
      expect(rows.map((r) => r.id)).toEqual(ids);
      expect(version).toBe(2);
    } finally {
      await s.close();
    }
  });
});
