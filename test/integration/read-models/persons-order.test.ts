import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestionProjection, ingestionQueries } from '../../../projections/ingestion';
import { json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { ingestEvents } from '../experiments/helpers';
import { foldIntoBoth, postgresForReadModels } from './folded-stores';

// PostHog lists persons newest first. Persons created by one /batch/ request share its log record's
// position and differ only by their index in it, so both columns of (seq_position, seq_index) must
// sort descending, and the index must break the tie: SQLite's reverse index scan would hide a missing
// tiebreak, PostgreSQL's sort of a few rows keeps them in insertion order and shows it.
const schemas = await postgresForReadModels('rm_persons_order');

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await ingestEvents(s, ['a1', 'a2', 'a3'].map((distinct_id) => ({ event: 'x', distinct_id })));
  // a2 again creates nobody: the second request's persons are b1 then b2.
  await ingestEvents(s, ['b1', 'a2', 'b2'].map((distinct_id) => ({ event: 'x', distinct_id })));
}, 60_000);
afterAll(() => s.close());

const NEWEST_FIRST = [['b2'], ['b1'], ['a3'], ['a2'], ['a1']];
const idsOf = (results: { distinct_ids: string[] }[]) => results.map((p) => p.distinct_ids);

describe('persons list order, persons created by one /batch/ request', () => {
  it('lists the later request first and, within a request, the later event first, over HTTP and in pages', async () => {
    const list = async (query: string) => {
      const res = await s.api(`/api/projects/${s.credentials.project_id}/persons/${query}`);
      expect(res.status).toBe(200);
      return idsOf((await json(res)).results);
    };
    expect(await list('')).toEqual(NEWEST_FIRST);
    expect(await list('?limit=2&offset=1')).toEqual([['b1'], ['a3']]);
  });

  it.runIf(schemas !== null)('lists them in the same order on SQLite and PostgreSQL read models', async () => {
    const folded = await foldIntoBoth(s.runtime.log, [ingestionProjection], schemas!);
    try {
      const listed = await folded.both(async (db) => idsOf((await ingestionQueries(db).persons(s.credentials.project_id, { limit: 100 })).results));
      expect(listed).toEqual({ sqlite: NEWEST_FIRST, postgres: NEWEST_FIRST });
    } finally {
      await folded.close();
    }
  });
});
