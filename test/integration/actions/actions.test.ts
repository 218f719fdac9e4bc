import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type Json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { expectError, keyWith, send } from '../experiments/helpers';

// PostHog's actions (named sets of steps an event may match), over real HTTP and SQLite.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const actionsPath = (rest = '', projectId: number | string = s.credentials.project_id) => `/api/projects/${projectId}/actions/${rest}`;
const get = async (path: string) => json(await s.api(path));
async function create(body: Record<string, unknown>, projectId?: number): Promise<Json> {
  const res = await send(s, 'POST', actionsPath('', projectId), body);
  const out = await json(res);
  expect(res.status, JSON.stringify(out)).toBe(201);
  return out;
}

/** A step as PostHog stores it: every key, url_matching "contains" unless given. */
const stored = (step: Record<string, unknown>) => ({
  event: null,
  properties: null,
  selector: null,
  tag_name: null,
  text: null,
  text_matching: null,
  href: null,
  href_matching: null,
  url: null,
  url_matching: 'contains',
  ...step,
});

describe('actions CRUD', () => {
  it('creates with PostHog fields and step defaults, reads, lists, changes, soft-deletes and restores', async () => {
    const steps = [{ event: '$pageview', url: '/pricing' }, { event: 'signed_up', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }], url_matching: 'exact' }];
    const a = await create({ name: 'Signed up', description: 'who signs up', tags: ['growth'], steps });
    expect(Object.keys(a).sort()).toEqual(
      ['bytecode_error', 'created_at', 'created_by', 'creation_context', 'deleted', 'description', 'id', 'is_action', 'is_calculating', 'last_calculated_at', 'name', 'pinned_at', 'post_to_slack', 'slack_message_format', 'steps', 'tags', 'team_id'].sort(),
    );
    expect(a).toMatchObject({ name: 'Signed up', description: 'who signs up', tags: ['growth'], deleted: false, is_action: true, post_to_slack: false, slack_message_format: '', team_id: s.credentials.project_id, pinned_at: null });
    expect(a.steps).toEqual([stored(steps[0]!), stored(steps[1]!)]);
    // The key's user made it: the same user /api/users/@me/ answers.
    const me = await get('/api/users/@me/');
    expect(a.created_by).toMatchObject({ id: me.id, uuid: me.uuid, email: me.email });
    expect(await get(actionsPath(`${a.id}/`))).toEqual(a);

    const bare = await create({ name: 'Bare' });
    expect(bare).toMatchObject({ description: '', tags: [], steps: [] });
    const list = await get(actionsPath());
    expect(Object.keys(list)).toEqual(['results']);
    expect((list.results as Json[]).map((x) => x.id)).toEqual(expect.arrayContaining([a.id, bare.id]));

    const changed = await json(await send(s, 'PATCH', actionsPath(`${a.id}/`), { name: 'Signed up (web)', steps: [{ event: 'signed_up', url: '^https://app', url_matching: 'regex' }], pinned_at: '2020-01-01T00:00:00Z' }));
    expect(changed).toMatchObject({ id: a.id, name: 'Signed up (web)', description: 'who signs up', steps: [stored({ event: 'signed_up', url: '^https://app', url_matching: 'regex' })] });
    // PostHog pins with the server's time, not the one given.
    expect(changed.pinned_at).not.toBe('2020-01-01T00:00:00.000Z');
    expect(Date.parse(changed.pinned_at)).toBeGreaterThan(Date.parse('2024-01-01'));

    const deleted = await json(await send(s, 'PATCH', actionsPath(`${a.id}/`), { deleted: true }));
    expect(deleted).toMatchObject({ id: a.id, deleted: true });
    expect((await get(actionsPath(`${a.id}/`))).deleted).toBe(true);
    expect(((await get(actionsPath())).results as Json[]).map((x) => x.id)).not.toContain(a.id);
    // Its name is free again while it is deleted.
    const taker = await create({ name: 'Signed up (web)' });
    await send(s, 'PATCH', actionsPath(`${taker.id}/`), { deleted: true });
    const restored = await json(await send(s, 'PATCH', actionsPath(`${a.id}/`), { deleted: false }));
    expect(restored.deleted).toBe(false);
    expect(((await get(actionsPath())).results as Json[]).map((x) => x.id)).toContain(a.id);

    // DELETE is refused as PostHog's ForbidDestroyModel refuses it, and changes nothing.
    await expectError(await send(s, 'DELETE', actionsPath(`${a.id}/`)), 405, /use a patch/i);
    expect((await get(actionsPath(`${a.id}/`))).deleted).toBe(false);
    await expectError(await s.api(actionsPath('999999/')), 404, 'Not found.');
    await expectError(await s.api(actionsPath('abc/')), 404);
  });

  it('refuses bad input with 400 in the error shape, naming the field, and changes nothing', async () => {
    const kept = await create({ name: 'Kept action', steps: [{ event: 'kept' }] });
    const refused = async (body: unknown, detail: string | RegExp, attr: string) => expectError(await send(s, 'POST', actionsPath(), body), 400, detail, attr);
    await refused({ name: 'x'.repeat(401) }, 'Ensure this field has no more than 400 characters.', 'name');
    await refused({ name: 7 }, 'Not a valid string.', 'name');
    await refused({ name: 'Kept action' }, `This project already has an action with this name, ID ${kept.id}`, 'name');
    await refused({ name: 'Bad steps', steps: 'x' }, 'Expected a list of items but got type "str".', 'steps');
    await refused({ name: 'Bad step', steps: [1] }, 'Step 1: Invalid data. Expected a dictionary, but got int.', 'steps');
    await refused({ name: 'Bad matching', steps: [{ event: 'a' }, { event: 'b', url: 'x', url_matching: 'startswith' }] }, 'Step 2 url_matching: "startswith" is not a valid choice.', 'steps');
    await refused({ name: 'Bad text matching', steps: [{ event: 'a', text_matching: 'fuzzy' }] }, 'Step 1 text_matching: "fuzzy" is not a valid choice.', 'steps');
    await refused({ name: 'Blank url', steps: [{ event: 'a', url: '  ' }] }, 'Step 1 url: This field may not be blank.', 'steps');
    await refused({ name: 'Bad props', steps: [{ event: 'a', properties: {} }] }, 'Step 1 properties: Expected a list of items but got type "dict".', 'steps');
    await refused({ name: 'Bad prop', steps: [{ event: 'a', properties: ['x'] }] }, 'Step 1 properties: Expected a dictionary of items but got type "str".', 'steps');
    await refused({ name: 'Bad tags', tags: 'x' }, /Expected a list/, 'tags');
    await refused({ name: 'Null description', description: null }, 'This field may not be null.', 'description');
    await refused({ name: 'Bad deleted', deleted: 'yes' }, 'Must be a valid boolean.', 'deleted');
    await expectError(await send(s, 'PATCH', actionsPath(`${kept.id}/`), { steps: [{ event: 'a', href_matching: 'x' }] }), 400, /href_matching/, 'steps');
    const other = await create({ name: 'Other action' });
    await expectError(await send(s, 'PATCH', actionsPath(`${other.id}/`), { name: 'Kept action' }), 400, `This project already has an action with this name, ID ${kept.id}`, 'name');

    expect(await get(actionsPath(`${kept.id}/`))).toEqual(kept);
    expect(await get(actionsPath(`${other.id}/`))).toEqual(other);
    const names = ((await get(actionsPath())).results as Json[]).map((x) => x.name);
    for (const name of ['Bad steps', 'Bad step', 'Bad matching', 'Blank url', 'Bad props', 'Bad tags', 'Null description', 'Bad deleted']) expect(names).not.toContain(name);
  });

  it('a renamed action holds its new name and lets its old one go', async () => {
    const renamed = await create({ name: 'Before rename' });
    expect(await json(await send(s, 'PATCH', actionsPath(`${renamed.id}/`), { name: 'After rename' }))).toMatchObject({ name: 'After rename' });
    await expectError(await send(s, 'POST', actionsPath(), { name: 'After rename' }), 400, `This project already has an action with this name, ID ${renamed.id}`, 'name');
    // A change that leaves the name out keeps it.
    await send(s, 'PATCH', actionsPath(`${renamed.id}/`), { description: 'still named' });
    await expectError(await send(s, 'POST', actionsPath(), { name: 'After rename' }), 400, `This project already has an action with this name, ID ${renamed.id}`, 'name');
    expect(await create({ name: 'Before rename' })).toMatchObject({ name: 'Before rename' });
  });

  it("needs PostHog's action scopes: read to list, write to create", async () => {
    const readOnly = await keyWith(s, ['action:read']);
    expect((await s.api(actionsPath(), { key: readOnly })).status).toBe(200);
    await expectError(await send(s, 'POST', actionsPath(), { name: 'Scoped' }, readOnly), 403);
    const experimentsOnly = await keyWith(s, ['experiment:read', 'experiment:write']);
    await expectError(await s.api(actionsPath(), { key: experimentsOnly }), 403);
    const writer = await keyWith(s, ['action:write']);
    expect((await send(s, 'POST', actionsPath(), { name: 'Written with action:write' }, writer)).status).toBe(201);
  });

  it("another project neither sees nor changes a project's action", async () => {
    const mine = await create({ name: 'Mine only', steps: [{ event: 'mine' }] });
    const other = await s.runtime.access.createProject(s.credentials.organization_id, 'Actions elsewhere', { type: 'system' });
    await expectError(await s.api(actionsPath(`${mine.id}/`, other.id)), 404);
    await expectError(await send(s, 'PATCH', actionsPath(`${mine.id}/`, other.id), { name: 'taken over' }), 404);
    await expectError(await send(s, 'PATCH', actionsPath(`${mine.id}/`, other.id), { deleted: true }), 404);
    await expectError(await send(s, 'DELETE', actionsPath(`${mine.id}/`, other.id)), 404);
    expect((await get(actionsPath('', other.id))).results).toEqual([]);
    // The same name is free in the other project.
    await create({ name: 'Mine only' }, other.id);
    expect(await get(actionsPath(`${mine.id}/`))).toEqual(mine);
  });

  it('answers as_of before and after a change, and 404 before it existed', async () => {
    const before = await s.runtime.log.head();
    const a = await create({ name: 'Travelling action', steps: [{ event: 'a' }] });
    const createdAt = await s.runtime.log.head();
    const changed = await json(await send(s, 'PATCH', actionsPath(`${a.id}/`), { name: 'Travelled action', steps: [{ event: 'b', url: '/x' }] }));
    const changedAt = await s.runtime.log.head();
    await send(s, 'PATCH', actionsPath(`${a.id}/`), { deleted: true });
    const asOf = (position: number) => get(`${actionsPath(`${a.id}/`)}?as_of=position:${position}`);
    expect(await asOf(createdAt)).toEqual(a);
    expect(await asOf(changedAt)).toEqual(changed);
    expect((await get(actionsPath(`${a.id}/`))).deleted).toBe(true);
    await expectError(await s.api(`${actionsPath(`${a.id}/`)}?as_of=position:${before}`), 404);
  });

  it('logs created, updated and deleted (scope Action) with exact before and after', async () => {
    const a = await create({ name: 'Audited action', description: 'first' });
    await send(s, 'PATCH', actionsPath(`${a.id}/`), { description: 'second', steps: [{ event: 'x' }] });
    await send(s, 'PATCH', actionsPath(`${a.id}/`), { description: 'second' });
    await send(s, 'PATCH', actionsPath(`${a.id}/`), { deleted: true });
    const page = await get(actionsPath(`${a.id}/activity/`));
    expect(page.results.map((e: Json) => e.activity)).toEqual(['deleted', 'updated', 'created']);
    expect(page.results.every((e: Json) => e.scope === 'Action' && e.item_id === String(a.id))).toBe(true);
    const updated = page.results[1].detail.changes;
    expect(updated).toEqual([
      { type: 'Action', action: 'changed', field: 'description', before: 'first', after: 'second' },
      { type: 'Action', action: 'changed', field: 'steps', before: [], after: [stored({ event: 'x' })] },
    ]);
    const log = await get(`/api/projects/${s.credentials.project_id}/activity_log/?scope=Action&item_id=${a.id}`);
    expect(log.results.map((e: Json) => e.activity)).toEqual(['deleted', 'updated', 'created']);

    // A restore is logged as PostHog's handle_action_change logs it: an update of `deleted`.
    await send(s, 'PATCH', actionsPath(`${a.id}/`), { deleted: false });
    const after = await get(actionsPath(`${a.id}/activity/`));
    expect(after.results.map((e: Json) => e.activity)).toEqual(['updated', 'deleted', 'updated', 'created']);
    expect(after.results[0].detail.changes).toEqual([{ type: 'Action', action: 'changed', field: 'deleted', before: null, after: false }]);
  });
});
