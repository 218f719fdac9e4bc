import { describe, expect, it } from 'vitest';
import { renameInSql, renamedSchema } from '../../../src/runtime/side-by-side/renamed-session';

const renames = new Map([
  ['persons', 'persons__v9'],
  ['events', 'events__v9'],
  ['events_by_time', 'events_by_time__v9'],
]);

describe('renaming the tables of a statement', () => {
  it('renames bare and double-quoted table and index names', () => {
    expect(renameInSql('INSERT INTO persons (uuid) SELECT p.uuid FROM "persons" p JOIN events INDEXED BY events_by_time ON 1', renames)).toBe(
      'INSERT INTO persons__v9 (uuid) SELECT p.uuid FROM "persons__v9" p JOIN events__v9 INDEXED BY events_by_time__v9 ON 1',
    );
  });

  it('leaves string literals, qualified names and longer words alone', () => {
    expect(renameInSql("SELECT e.persons, persons_count, 'persons' FROM events WHERE x = 'it''s events'", renames)).toBe(
      "SELECT e.persons, persons_count, 'persons' FROM events__v9 WHERE x = 'it''s events'",
    );
  });

  it('renames a schema with its indexes', () => {
    const table = renamedSchema({ name: 'events', columns: { uuid: 'text' }, primaryKey: ['uuid'], indexes: { events_by_time: ['uuid'] }, orderBy: 'uuid' }, '__v9');
    expect(table.name).toBe('events__v9');
    expect(table.indexes).toEqual({ events_by_time__v9: ['uuid'] });
  });
});
