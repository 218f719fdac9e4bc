import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type Json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { expectError } from '../experiments/helpers';
import { ingest } from '../flags/helpers';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { toApiError } from '../../../src/http/errors';
import { HistoryNotReadyError } from '../../../src/time-travel';
import { PersonTimeTravel } from '../../../src/time-travel/persons';

// Persons and groups `as_of`: folded from the few ingestion records naming them. Before a merge, the
// two persons come back as they were, each with its own distinct ids and properties.
let s: TestServer;
let p: string;
beforeAll(async () => {
  s = await startTestServer();
  p = `/api/projects/${s.credentials.project_id}`;
});
afterAll(() => s.close());

const get = async (path: string) => {
  const res = await s.api(path);
  return { status: res.status, body: await json(res) };
};
const at = (path: string, asOf: string) => `${path}${path.includes('?') ? '&' : '?'}as_of=${encodeURIComponent(asOf)}`;
const noise = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ event: 'noise', distinct_id: `${tag}-${i % 7}`, properties: { $set: { i } } }));

describe('persons as_of', () => {
  it('answers the two persons of before a merge as they were, and the merged one after', async () => {
    const empty = await s.runtime.log.head();
    // Other persons' events share the records (one /batch/ is one record).
    await ingest(s, [...noise(20, 'x'), { event: 'visited', distinct_id: 'anon-1', properties: { $set: { plan: 'free', seen: 1 } } }, ...noise(5, 'y')]);
    await ingest(s, [{ event: 'signed_up', distinct_id: 'user-1', properties: { $set: { email: 'a@example.com' } } }, ...noise(10, 'z')]);
    const paths = [`${p}/persons/?distinct_id=anon-1`, `${p}/persons/?distinct_id=user-1`];
    const before = new Map<string, { status: number; body: Json }>();
    for (const path of paths) before.set(path, await get(path));
    const anonPerson = before.get(paths[0])!.body.results[0];
    const userPerson = before.get(paths[1])!.body.results[0];
    expect(anonPerson.uuid).not.toBe(userPerson.uuid);
    before.set(`${p}/persons/${anonPerson.uuid}/`, await get(`${p}/persons/${anonPerson.uuid}/`));
    before.set(`${p}/persons/${userPerson.uuid}/`, await get(`${p}/persons/${userPerson.uuid}/`));
    const beforeMerge = await s.runtime.log.head();

    await ingest(s, [{ event: '$identify', distinct_id: 'user-1', properties: { $anon_distinct_id: 'anon-1', $set: { plan: 'pro' } } }, ...noise(3, 'x')]);
    const merged = (await get(paths[0])).body.results[0];
    expect([...merged.distinct_ids].sort()).toEqual(['anon-1', 'user-1']);
    expect(merged.properties).toMatchObject({ plan: 'pro', email: 'a@example.com', seen: 1 });
    const absorbed = merged.uuid === anonPerson.uuid ? userPerson.uuid : anonPerson.uuid;
    expect((await s.api(`${p}/persons/${absorbed}/`)).status).toBe(404);

    // As of before the merge: what the live service answered then, by distinct id and by uuid.
    for (const [path, then] of before) expect(await get(at(path, `position:${beforeMerge}`)), path).toEqual(then);
    // As of now: the merged person, as live.
    const head = await s.runtime.log.head();
    for (const path of paths) expect(await get(at(path, `position:${head}`)), path).toEqual(await get(path));
    expect(await get(at(`${p}/persons/${merged.uuid}/`, `position:${head}`))).toEqual(await get(`${p}/persons/${merged.uuid}/`));
    // The merged-away person no longer exists after the merge.
    expect((await s.api(at(`${p}/persons/${absorbed}/`, `position:${head}`))).status).toBe(404);
    // Before anyone existed: no person.
    expect((await get(at(paths[0], `position:${empty}`))).body).toMatchObject({ count: 0, results: [] });
    await expectError(await s.api(at(`${p}/persons/${anonPerson.uuid}/`, `position:${empty}`)), 404);
    // A moment after the merge was recorded answers the merged person too.
    expect((await get(at(paths[1], new Date(Date.now() + 60_000).toISOString()))).body.results[0].uuid).toBe(merged.uuid);
  });

  it('answers 503 history_not_ready while an upgrade still builds the tables it reads', async () => {
    const people = new PersonTimeTravel({
      scratch: () => new SqliteReadModelStore(openSqlite(':memory:')),
      live: s.runtime.readModels.readmodels.session,
      hasTable: async (name) => name !== 'distinct_id_events',
    });
    const err = await people.personOf(s.credentials.project_id, 'anon-1', { position: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HistoryNotReadyError);
    expect(toApiError(err)).toMatchObject({ status: 503, body: { type: 'server_error', code: 'history_not_ready', attr: null } });
  });

  it('needs one person for the list, and a valid point', async () => {
    await expectError(await s.api(at(`${p}/persons/`, 'position:1')), 400, /distinct_id/, 'as_of');
    await expectError(await s.api(at(`${p}/persons/?distinct_id=anon-1`, 'soon')), 400, /as_of/, 'as_of');
  });
});

describe('groups as_of', () => {
  it('answers a group as it stood before a change', async () => {
    await ingest(s, [{ event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { tier: 'free' } } }, ...noise(4, 'g')]);
    const index = (await get(`${p}/groups_types/`)).body.find((t: { group_type: string }) => t.group_type === 'company').group_type_index;
    const path = `${p}/groups/?group_type_index=${index}&group_key=acme`;
    const then = await get(path);
    expect(then.body.results[0].group_properties).toEqual({ tier: 'free' });
    const point = await s.runtime.log.head();
    await ingest(s, [{ event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { tier: 'enterprise' } } }]);
    expect((await get(path)).body.results[0].group_properties).toEqual({ tier: 'enterprise' });
    expect(await get(at(path, `position:${point}`))).toEqual(then);
    await expectError(await s.api(at(`${p}/groups/`, `position:${point}`)), 400, /group_key/, 'as_of');
  });
});
