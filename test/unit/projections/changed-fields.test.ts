import { beforeAll, describe, expect, it } from 'vitest';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { changedFields } from '../../../projections/changed-fields';

describe('changedFields: an update laid over a resource row\'s stored fields', () => {
  const store = new SqliteReadModelStore(openSqlite(':memory:'));
  beforeAll(() => store.session.run('CREATE TABLE things (id INTEGER PRIMARY KEY, fields TEXT NOT NULL)'));

  it('keeps the fields the update does not name and takes the ones it does', async () => {
    await store.session.run('INSERT INTO things (id, fields) VALUES (1, ?)', JSON.stringify({ name: 'a', tags: ['x'], stage: 'beta' }));
    expect(await changedFields(store.session, 'things', 1, { name: 'b', stage: null })).toEqual({ name: 'b', tags: ['x'], stage: null });
  });

  it('answers null for a row the projection never created (the update changes nothing)', async () => {
    expect(await changedFields(store.session, 'things', 2, { name: 'b' })).toBeNull();
  });
});
