import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';
import { posthogClient, settle } from '../support/posthog';
import { json } from '../support/json';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ env: { PROJECTIONS_IN_WORKER: 'true' } });
});
afterAll(() => s.close());

describe('posthog-node as the client: ingestion, persons and groups', () => {
  it('capture, identify, alias and groupIdentify all land; the merged person has both ids', async () => {
    const client = posthogClient(s);
    client.capture({ distinctId: 'anon-123', event: '$pageview', properties: { $current_url: 'https://example.com/' } });
    client.capture({ distinctId: 'anon-123', event: 'signed up', properties: { plan: 'pro' }, groups: { company: 'acme' } });
    client.identify({ distinctId: 'user@example.com', properties: { $set: { email: 'user@example.com', name: 'Ada' }, $set_once: { first_seen: 'today' }, $anon_distinct_id: 'anon-123' } });
    client.alias({ distinctId: 'user@example.com', alias: 'crm-42' });
    client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { name: 'Acme Inc', employees: 50 } });
    await client.shutdown();
    await settle(s);

    const persons = await json(await s.api(`/api/projects/${s.credentials.project_id}/persons/?distinct_id=user@example.com`));
    expect(persons.count).toBe(1);
    const person = persons.results[0];
    expect([...person.distinct_ids].sort()).toEqual(['anon-123', 'crm-42', 'user@example.com']);
    expect(person.properties).toMatchObject({ email: 'user@example.com', name: 'Ada', first_seen: 'today' });
    expect(person.is_identified).toBe(true);
    const byAlias = await json(await s.api(`/api/projects/${s.credentials.project_id}/persons/?distinct_id=crm-42`));
    expect(byAlias.results[0].id).toBe(person.id);

    const groups = await json(await s.api(`/api/projects/${s.credentials.project_id}/groups/?group_type_index=0&group_key=acme`));
    expect(groups.results[0].group_properties).toMatchObject({ name: 'Acme Inc', employees: 50 });
    const types = await json(await s.api(`/api/projects/${s.credentials.project_id}/groups_types/`));
    expect(types).toEqual([expect.objectContaining({ group_type: 'company', group_type_index: 0 })]);

    const events = await json(await s.api(`/api/projects/${s.credentials.project_id}/events/?distinct_id=anon-123`));
    const names = events.results.map((e: { event: string }) => e.event).sort();
    expect(names).toEqual(['$pageview', 'signed up']);
    const signedUp = events.results.find((e: { event: string }) => e.event === 'signed up');
    expect(signedUp.properties.$lib).toBe('posthog-node');
    expect(signedUp.properties.$groups).toEqual({ company: 'acme' });
  });
});
