import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { earlyAccessFeatureStream, type Actor } from '../../../streams';
import { DomainError } from '../../../src/errors';
import { EarlyAccessService } from '../../../src/early-access';
import type { FlagService } from '../../../src/flags/management';
import { CreateEarlyAccessBody } from '../../../src/http/schema/early-access';
import { json } from '../../support/json';
import { settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';
import { expectError } from '../experiments/helpers';

// Creating a feature touches two aggregates (the feature, then its flag). These tests drive the
// failure paths for real: concurrent creates, a crash between the appends (the first event
// appended alone), and the flag's key taken between the check and the flag append.
let s: TestServer;
let actor: Actor;
beforeAll(async () => {
  s = await startTestServer();
  actor = { type: 'user', id: (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!.id };
});
afterAll(() => s.close());

const projectId = () => s.credentials.project_id;
const featuresPath = (rest = '') => `/api/projects/${projectId()}/early_access_feature/${rest}`;
const eventsOfType = async (type: string) => (await s.runtime.log.readAll()).filter((e) => e.type === type);
const flagsWithKey = async (key: string) => (await json(await s.api(`/api/projects/${projectId()}/feature_flags/?search=${key}`))).results.filter((f: { key: string }) => f.key === key);
const listed = async () => (await json(await s.api(featuresPath()))).results.map((f: { id: string }) => f.id);

describe('creating an early access feature leaves no orphan', () => {
  it('five concurrent creates of one name: one feature with one flag, four refused before appending', async () => {
    const before = (await eventsOfType('EarlyAccessFeatureCreated')).length;
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => s.runtime.earlyAccess.service.create(projectId(), CreateEarlyAccessBody.parse({ name: 'Race', stage: 'beta' }), actor)));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).toHaveLength(1);
    for (const l of lost) expect((l.reason as DomainError).message).toBe('There is already a feature flag with this key.');
    expect((await eventsOfType('EarlyAccessFeatureCreated')).length - before).toBe(1);
    expect(await flagsWithKey('race')).toHaveLength(1);
    expect(await listed()).toContain(won[0].value.id);
  });

  it('a crash after the feature append (no flag yet) leaves nothing visible; a later create of the same name is the only one linked', async () => {
    const stale = '00000000-0000-4000-8000-00000000c0de';
    await s.runtime.log.append(
      earlyAccessFeatureStream(stale),
      [
        {
          type: 'EarlyAccessFeatureCreated',
          data: {
            featureId: stale,
            projectId: projectId(),
            fields: { name: 'Crashed', description: '', stage: 'beta', documentation_url: '', payload: {}, assignee: null },
            flagKey: 'crashed',
            flagCreated: false,
            createdBy: null,
          },
        },
      ],
      { expectedRevision: 'no_stream', context: { actor, projectId: projectId() } },
    );
    await settle(s);
    await expectError(await s.api(featuresPath(`${stale}/`)), 404);
    expect(await listed()).not.toContain(stale);
    expect(await flagsWithKey('crashed')).toHaveLength(0);

    const retried = await s.runtime.earlyAccess.service.create(projectId(), CreateEarlyAccessBody.parse({ name: 'Crashed', stage: 'beta' }), actor);
    await settle(s);
    const ids = await listed();
    expect(ids).toContain(retried.id);
    expect(ids).not.toContain(stale);
    expect(await flagsWithKey('crashed')).toHaveLength(1);
  });

  it('a flag key taken between the check and the flag append: the feature is abandoned, the other flag untouched', async () => {
    const real = s.runtime.flags;
    // The real flag service, with a competing create landing just before the feature's own.
    const racing = Object.create(real) as FlagService;
    racing.create = async (pid, input, who, extra) => {
      await real.create(pid, { key: input.key, name: 'Someone else', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } }, who);
      return real.create(pid, input, who, extra);
    };
    const service = new EarlyAccessService({
      log: s.runtime.log,
      features: s.runtime.earlyAccess.queries,
      flagQueries: s.runtime.queries.flags,
      flags: racing,
      waitFor: (position, names) => s.runtime.runner.waitFor(position, names),
    });
    let caught: unknown;
    try {
      await service.create(projectId(), CreateEarlyAccessBody.parse({ name: 'Contested', stage: 'beta' }), actor);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect((caught as DomainError).message).toBe('There is already a feature flag with this key.');
    await settle(s);

    const abandoned = await eventsOfType('EarlyAccessFeatureAbandoned');
    expect(abandoned).toHaveLength(1);
    const featureId = (abandoned[0].data as { featureId: string }).featureId;
    await expectError(await s.api(featuresPath(`${featureId}/`)), 404);
    expect(await listed()).not.toContain(featureId);
    const [other] = await flagsWithKey('contested');
    expect(other.name).toBe('Someone else');
    expect(other.filters.super_groups).toBeUndefined();
  });
});
