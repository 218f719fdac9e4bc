import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../support/server';
import { posthogClient, settle } from '../../support/posthog';
import { cli } from '../../support/cli';

describe('replay after a mixed workload', () => {
  it('verify rebuilds identical persons, groups, events, flags and access', async () => {
    const s = await startTestServer();
    const client = posthogClient(s, { flushAt: 100 });
    for (let i = 0; i < 300; i++) {
      const anon = `anon-${i}`;
      client.capture({ distinctId: anon, event: '$pageview', properties: { $set_once: { first_url: `/p/${i}` }, i } });
      if (i % 3 === 0) client.identify({ distinctId: `user-${i}`, properties: { $set: { plan: i % 2 ? 'pro' : 'free' }, $anon_distinct_id: anon } });
      if (i % 5 === 0) client.alias({ distinctId: `user-${i}`, alias: `crm-${i}` });
      if (i % 7 === 0) client.capture({ distinctId: `user-${i}`, event: 'bought', groups: { company: `co-${i % 4}` }, properties: { $unset: ['plan'] } });
      if (i % 11 === 0) client.groupIdentify({ groupType: i % 2 ? 'company' : 'team', groupKey: `co-${i % 4}`, properties: { size: i } });
      if (i % 13 === 0) client.capture({ distinctId: `user-${i}`, event: '$merge_dangerously', properties: { alias: `user-${i + 3}` } });
      if (i % 17 === 0) client.capture({ distinctId: 'anonymous', event: '$identify', properties: { $anon_distinct_id: `anon-${i}` } });
      if (i % 19 === 0) client.capture({ distinctId: `ghost-${i}`, event: 'personless', properties: { $process_person_profile: false, $set: { x: 1 } } });
    }
    await client.shutdown();
    for (const key of ['alpha', 'beta']) {
      const res = await s.api(`/api/projects/${s.credentials.project_id}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key, filters: { groups: [{ rollout_percentage: 30 }] } }) });
      expect(res.status).toBe(201);
    }
    await settle(s);
    const persons = s.runtime.stores!.readmodels.prepare('SELECT count(*) AS n FROM persons').get() as { n: number };
    expect(persons.n).toBeGreaterThan(100);

    const result = cli(s.dataDir, ['verify', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.ok).toBe(true);
    expect(report.rows.map((r: { projection: string }) => r.projection)).toEqual(expect.arrayContaining(['access', 'ingestion', 'feature_flags']));
    expect(report.rows.find((r: { projection: string }) => r.projection === 'ingestion').position).toBe(await s.runtime.log.head());
    await s.close();
  });
});
