import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { ingest } from '../flags/helpers';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { foldInScratch } from '../../../src/time-travel';
import { PersonTimeTravel } from '../../../src/time-travel/persons';
import { createIngestionProjection, ingestionQueries } from '../../../projections/ingestion';
import { ingestStream } from '../../../streams';

// Persons and groups `as_of` fold only the events naming them (distinct_id_events). Whatever the
// shortcut, the answer must be the one the plain fold gives: every ingestion record up to the point,
// whole, folded by the ingestion projection. Many persons share each record, with merges, aliases,
// property operations and group identifies between the points compared.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const scratch = () => new SqliteReadModelStore(openSqlite(':memory:'));

/** A deterministic mix of what changes persons and groups, over `ids` distinct ids. */
function mixedBatch(seed: number, size: number, ids: number) {
  const id = (k: number) => `p-${k % ids}`;
  return Array.from({ length: size }, (_, i) => {
    const n = seed * 7919 + i * 104729;
    const who = id(n);
    switch (n % 9) {
      case 0:
        return { event: '$identify', distinct_id: who, properties: { $anon_distinct_id: id(n + 3), $set: { step: seed, i } } };
      case 1:
        return { event: '$create_alias', distinct_id: who, properties: { alias: id(n + 5) } };
      case 2:
        return { event: 'seen', distinct_id: who, properties: { $set_once: { first: seed }, $unset: ['step'] } };
      case 3:
        return { event: '$groupidentify', distinct_id: who, properties: { $group_type: 'company', $group_key: `c-${n % 4}`, $group_set: { round: seed } } };
      case 4:
        return { event: '$pageview', distinct_id: who, properties: { $browser: n % 2 ? 'Firefox' : 'Chrome', $current_url: `https://example.com/${i}` } };
      default:
        return { event: 'clicked', distinct_id: who, properties: { $set: { clicks: i, seed } } };
    }
  });
}

describe('persons and groups as_of', () => {
  it('answer what the plain fold of every record up to the point answers', async () => {
    const projectId = s.credentials.project_id;
    const people = new PersonTimeTravel({ scratch, live: s.runtime.readModels.readmodels.session, hasTable: async () => true });
    const points: number[] = [];
    for (let round = 0; round < 5; round++) {
      await ingest(s, mixedBatch(round, 400, 60));
      points.push(await s.runtime.log.head());
    }
    const stream = ingestStream(projectId);
    const records = (await s.runtime.log.readAll()).filter((r) => r.streamId === stream);
    let persons = 0;
    for (const point of points) {
      const upTo = records.filter((r) => r.position <= point);
      const plain = <T>(read: (q: ReturnType<typeof ingestionQueries>) => Promise<T>) =>
        foldInScratch(scratch, { projections: [createIngestionProjection()], events: upTo, read: (db) => read(ingestionQueries(db)) });
      for (let k = 0; k < 60; k += 11) {
        const distinctId = `p-${k}`;
        const expected = await plain(async (q) => (await q.persons(projectId, { distinctId, limit: 1 })).results[0]);
        const got = await people.personOf(projectId, distinctId, { position: point });
        expect(got, `${distinctId} at ${point}`).toEqual(expected);
        if (expected) {
          persons++;
          expect(await people.person(projectId, expected.uuid, { position: point }), `${expected.uuid} at ${point}`).toEqual(
            await plain((q) => q.person(projectId, expected.uuid)),
          );
        }
      }
      for (let g = 0; g < 4; g++) {
        const expected = await plain((q) => q.group(projectId, 0, `c-${g}`));
        expect(await people.group(projectId, 0, `c-${g}`, { position: point }), `c-${g} at ${point}`).toEqual(expected ?? undefined);
      }
    }
    // Sanity: the points compared held persons, some with several ids and changed properties.
    expect(persons).toBeGreaterThan(15);
    // What was compared was folded from a history that leaves out the events that changed nothing:
    // a repeated $pageview (its lifted properties already held) is not kept, while every event that
    // wrote (each 'clicked' sets a new value) is.
    const kept = async (event: string) =>
      (await s.runtime.readModels.readmodels.session.get<{ n: number }>(
        `SELECT count(*) AS n FROM distinct_id_events WHERE project_id = ? AND json_extract(event, '$.event') = ?`,
        projectId,
        event,
      ))!.n;
    const sent = (event: string) => [0, 1, 2, 3, 4].flatMap((round) => mixedBatch(round, 400, 60)).filter((e) => e.event === event).length;
    expect(await kept('$pageview')).toBeGreaterThan(0);
    expect(await kept('$pageview')).toBeLessThan(sent('$pageview') / 2);
    expect(await kept('clicked')).toBe(sent('clicked'));
  });
});
